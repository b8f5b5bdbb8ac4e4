"""The conversation of one session as a list model whose rows are read a page at a time, on demand.

Rows are oldest first: every archived message of the session, with a cut marker row where compaction cut
history.json (the messages above it are in the archive only). When a session opens, the store worker
reads how many messages it has, where the cut is, and its last pages (:func:`read_layout`); the model
then has one row per message at once, and only the rows of pages it has read carry a message. Any other
row is a placeholder: painting it asks for its page (:meth:`ConversationModel.data`), and the pages asked
for are read on the store worker, at most a few at a time and newest wish first, so dragging the scroll
bar through 100,000 rows reads only where it stops. Jumping to the first or last row (Home, End) is
therefore one page read. Every row has the same height (:mod:`desktop.viewer.delegate`), so the view
lays out any number of rows at once; at most :data:`MAX_PAGES` pages are kept, the least recently shown
dropped first.

A session without archived messages (a ``priv-`` temporary chat, which lives in history.json only) is
read whole from its history instead.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from desktop.tasks import TaskRunner
from engine import Memory, Message

log = logging.getLogger("memtray.desktop.viewer.conversation")

PAGE = 200
"""Messages read at a time."""
MAX_PAGES = 100
"""Pages kept in memory (20,000 messages); the least recently shown go first."""
BATCH = 4
"""Pages read by one task on the store worker, at most."""
MessageRole = Qt.ItemDataRole.UserRole + 1
KindRole = Qt.ItemDataRole.UserRole + 2


class CutMarker:
    """The row that marks where compaction cut history.json (older messages are archive only)."""

    def __repr__(self) -> str:
        return "<compaction cut>"


CUT = CutMarker()
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Layout:
    """A session's shape, read on the store worker when it opens.

    Attributes:
        session: the session id.
        count: its messages (archived; or in history.json, for a session without archive).
        cut: the id of the first message still in history.json (0: never compacted).
        cut_position: how many messages come before the cut line (None: no cut line).
        pages: the pages read with it, by page number (the last ones, or those around ``focus``).
        focus: the position of the message asked to be revealed, when it is in the session.
    """

    session: str
    count: int
    cut: int = 0
    cut_position: int | None = None
    pages: dict[int, list[Message]] = field(default_factory=dict)
    focus: int | None = None

    @property
    def rows(self) -> int:
        return self.count + (1 if self.cut_position is not None else 0)


def read_pages(mem: Memory, session: str, pages: list[int]) -> dict[int, list[Message]]:
    """The archived messages of ``pages`` (page ``n`` holds positions ``n*PAGE`` to ``n*PAGE+PAGE-1``)."""
    found: dict[int, list[Message]] = {}
    for first, last in _runs(sorted(set(pages))):
        rows = mem.archive_slice(session, first * PAGE, (last - first + 1) * PAGE)
        for n in range(first, last + 1):
            found[n] = rows[(n - first) * PAGE : (n - first + 1) * PAGE]
    return found


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted ``numbers`` as (first, last) pairs."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def read_layout(mem: Memory, session: str, reveal: int | None = None) -> Layout:
    """How many messages ``session`` has, where its cut is, and the pages to show first (store worker).

    The pages are the last two, or, with ``reveal`` (a message id), the page holding that message and
    its neighbours.
    """
    count = mem.archive_count(session)
    if count == 0:  # nothing archived: a temporary chat (history.json only), or an empty session
        hot = mem.history(session)
        pages = {n: hot[n * PAGE : (n + 1) * PAGE] for n in range(-(-len(hot) // PAGE))}
        focus = next((i for i, m in enumerate(hot) if reveal is not None and m.id == reveal), None)
        return Layout(session, len(hot), pages=pages, focus=focus)
    cut = mem.compaction_cut(session)
    cut_position = mem.archive_position(session, cut) if cut else None
    if cut_position is not None and cut_position >= count:
        cut_position = None  # nothing after the cut (history.json holds no archived message)
    focus = None
    if reveal is not None:
        position = mem.archive_position(session, reveal)
        page = position // PAGE
        pages = read_pages(mem, session, [page - 1, page, page + 1] if page else [page, page + 1])
        found = pages.get(page, [])
        if position - page * PAGE < len(found) and found[position - page * PAGE].id == reveal:
            focus = position
        else:
            log.info("message %s is not in session %s", reveal, session)
    if focus is None:
        last = (count - 1) // PAGE
        pages = read_pages(mem, session, [last - 1, last] if last else [last])
    return Layout(session, count, cut, cut_position, {n: p for n, p in pages.items() if p}, focus)


@dataclass(frozen=True)
class Located:
    """Where a message is in the open session (read on the store worker)."""

    message_id: int
    position: int | None
    pages: dict[int, list[Message]]


def locate(mem: Memory, session: str, message_id: int) -> Located:
    """The position of message ``message_id`` in ``session`` and the page holding it (store worker)."""
    position = mem.archive_position(session, message_id)
    page = position // PAGE
    pages = read_pages(mem, session, [page])
    rows = pages[page]
    offset = position - page * PAGE
    found = offset < len(rows) and rows[offset].id == message_id
    return Located(message_id, position if found else None, pages)


class ConversationModel(QAbstractListModel):
    """The messages of one session, oldest first, each page read when it is first shown.

    Signals:
        session_did_load(str): a session's layout and last pages (or the pages around the message to
            reveal) are in the model.
        page_did_load(int, int): the rows ``first`` to ``last`` now hold their messages.
        rows_did_append(int): that many new messages were added at the end (:meth:`refresh`).
        layout_did_change(): :meth:`refresh` found the session changed otherwise (compacted, messages
            removed): the rows shown are out of date until it is opened again.
        message_did_locate(int, int): message ``id`` is at row ``row`` (its page is loaded); after
            :meth:`locate_message`.
        locate_did_fail(int): that message is not in the session.
        load_did_fail(object): a read failed (the exception).
    """

    session_did_load = Signal(str)
    page_did_load = Signal(int, int)
    rows_did_append = Signal(int)
    layout_did_change = Signal()
    message_did_locate = Signal(int, int)
    locate_did_fail = Signal(int)
    load_did_fail = Signal(object)

    def __init__(self, runner: TaskRunner, parent: Any = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.memory: Memory | None = None
        self.session: str | None = None
        self.layout = Layout("", 0)
        self.loading = False
        self._pages: OrderedDict[int, list[Message]] = OrderedDict()
        self._wanted: OrderedDict[int, None] = OrderedDict()
        self._reading = False
        self._generation = 0
        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(0)
        self._flush.timeout.connect(self._read_wanted)

    # -- rows and positions -----------------------------------------------------------------------

    @property
    def cut(self) -> int:
        """The id of the first message still in history.json (0: never compacted)."""
        return self.layout.cut

    def cut_row(self) -> int | None:
        return self.layout.cut_position

    def position_of(self, row: int) -> int | None:
        """The message position shown in ``row`` (None for the cut line)."""
        cut = self.layout.cut_position
        if cut is None or row < cut:
            return row
        return None if row == cut else row - 1

    def row_at(self, position: int) -> int:
        """The row showing the message at ``position``."""
        cut = self.layout.cut_position
        return position + (1 if cut is not None and position >= cut else 0)

    def message(self, row: int) -> Message | None:
        """The message of ``row`` if its page is loaded (None for a placeholder or the cut line)."""
        if not 0 <= row < self.layout.rows:
            return None
        position = self.position_of(row)
        if position is None:
            return None
        rows = self._pages.get(position // PAGE)
        offset = position % PAGE
        return rows[offset] if rows is not None and offset < len(rows) else None

    def row_of(self, message_id: int) -> int | None:
        """The row showing message ``message_id``, if its page is loaded."""
        for page, rows in self._pages.items():
            for offset, m in enumerate(rows):
                if m.id == message_id:
                    return self.row_at(page * PAGE + offset)
        return None

    def is_loaded(self, row: int) -> bool:
        """Whether ``row`` shows its message or the cut line (not a placeholder)."""
        return self.position_of(row) is None or self.message(row) is not None

    @property
    def hot_count(self) -> int:
        """Messages after the cut line (all of them when there is none)."""
        cut = self.layout.cut_position
        return self.layout.count - (cut or 0)

    # -- Qt model API -----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.layout.rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 1  # one column (public, as for any table view's model)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not index.isValid() or not 0 <= row < self.layout.rows:
            return None
        position = self.position_of(row)
        if position is None:
            return {KindRole: "cut", Qt.ItemDataRole.DisplayRole: "compaction cut"}.get(role)
        page = position // PAGE
        rows = self._pages.get(page)
        if rows is None:
            self._want(page)
            return {KindRole: "placeholder", Qt.ItemDataRole.DisplayRole: ""}.get(role)
        self._pages.move_to_end(page)
        message = rows[position % PAGE] if position % PAGE < len(rows) else None
        if role == KindRole:
            return "message" if message is not None else "placeholder"
        if role == MessageRole:
            return message
        if role == Qt.ItemDataRole.DisplayRole:
            return message.content if message is not None else ""
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and self.position_of(index.row()) is None:
            return Qt.ItemFlag.ItemIsEnabled
        return super().flags(index)

    # -- loading ----------------------------------------------------------------------------------

    def open(self, mem: Memory, session: str, reveal: int | None = None) -> None:
        """Show ``session``: clear, then read its layout on the store worker (around ``reveal``, a
        message id, or at the end)."""
        self._generation += 1
        generation = self._generation
        self.memory, self.session = mem, session
        self.beginResetModel()
        self.layout = Layout(session, 0)
        self._pages.clear()
        self._wanted.clear()
        self._reading = False
        self.loading = True
        self.endResetModel()
        self.runner.run_query(
            lambda: read_layout(mem, session, reveal),
            lambda layout: self._on_layout_read(generation, layout),
            lambda exc: self._on_load_failed(generation, exc),
            owner=self,
        )

    def close_session(self) -> None:
        """Show nothing: no session, no rows (its messages were deleted); answers still on their way are
        dropped."""
        self._generation += 1
        self.beginResetModel()
        self.session = None
        self.layout = Layout("", 0)
        self._pages.clear()
        self._wanted.clear()
        self._reading = False
        self.loading = False
        self.endResetModel()

    def refresh(self) -> None:
        """Read the session's layout again: new messages at the end become rows (the rows above keep
        their place); any other change (a compaction, a removed message) is :attr:`layout_did_change`."""
        mem, session = self.memory, self.session
        if mem is None or session is None or self.loading:
            return
        generation = self._generation
        self.runner.run_query(
            lambda: read_layout(mem, session),
            lambda layout: self._on_refresh_read(generation, layout),
            lambda exc: self._on_load_failed(generation, exc),
            owner=self,
        )

    def locate_message(self, message_id: int) -> None:
        """Find message ``message_id`` in the open session and load its page (store worker); then
        :attr:`message_did_locate` or :attr:`locate_did_fail`."""
        row = self.row_of(message_id)
        if row is not None:
            self.message_did_locate.emit(message_id, row)
            return
        mem, session = self.memory, self.session
        if mem is None or session is None:
            return
        generation = self._generation
        self.runner.run_query(
            lambda: locate(mem, session, message_id),
            lambda located: self._on_located(generation, located),
            lambda exc: self._on_load_failed(generation, exc),
            owner=self,
        )

    def _on_layout_read(self, generation: int, layout: Layout) -> None:
        if generation != self._generation:
            return
        self.beginResetModel()
        self.layout = layout
        self._pages = OrderedDict(sorted(layout.pages.items()))
        self.loading = False
        self.endResetModel()
        log.debug(
            "session %s opened: %d messages, cut line at %s",
            layout.session,
            layout.count,
            layout.cut_position,
        )
        self.session_did_load.emit(layout.session)

    def _on_refresh_read(self, generation: int, layout: Layout) -> None:
        if generation != self._generation or self.loading:
            return
        old = self.layout
        if layout.count == old.count and layout.cut_position == old.cut_position:
            return
        if layout.count > old.count and layout.cut_position == old.cut_position:
            self._pages.pop((old.count - 1) // PAGE if old.count else 0, None)  # it may have been short
            self._pages.update(layout.pages)
            self.beginInsertRows(QModelIndex(), old.rows, layout.rows - 1)
            self.layout = Layout(layout.session, layout.count, layout.cut, layout.cut_position)
            self.endInsertRows()
            self.rows_did_append.emit(layout.count - old.count)
            return
        self.layout_did_change.emit()  # a compaction, or messages removed: the caller reopens

    def _on_located(self, generation: int, located: Located) -> None:
        if generation != self._generation:
            return
        if located.position is None:
            log.info("message %s is not in session %s", located.message_id, self.session)
            self.locate_did_fail.emit(located.message_id)
            return
        self._store_pages(located.pages)
        self.message_did_locate.emit(located.message_id, self.row_at(located.position))

    def _want(self, page: int) -> None:
        """Ask for ``page`` (a placeholder was painted); read soon, after the running read."""
        self._wanted[page] = None
        self._wanted.move_to_end(page)
        if not self._reading and not self._flush.isActive():
            self._flush.start()

    def _read_wanted(self) -> None:
        """Read the pages asked for most recently (and their neighbours) on the store worker."""
        mem, session = self.memory, self.session
        if self._reading or mem is None or session is None or self.loading:
            return
        last_page = (self.layout.count - 1) // PAGE
        recent = [p for p in reversed(self._wanted) if p not in self._pages][:2]
        self._wanted.clear()
        targets: list[int] = []
        for page in recent + [n for p in recent for n in (p + 1, p - 1)]:
            if 0 <= page <= last_page and page not in self._pages and page not in targets:
                targets.append(page)
        targets = targets[:BATCH]
        if not targets:
            return
        self._reading = True
        generation = self._generation
        self.runner.run_query(
            lambda: read_pages(mem, session, targets),
            lambda pages: self._on_pages_read(generation, pages),
            lambda exc: self._on_load_failed(generation, exc),
            owner=self,
        )

    def _on_pages_read(self, generation: int, pages: dict[int, list[Message]]) -> None:
        if generation != self._generation:
            return
        self._reading = False
        self._store_pages(pages)
        expected = {n: min(PAGE, self.layout.count - n * PAGE) for n in pages}
        if any(len(rows) != expected[n] for n, rows in pages.items()):
            self.refresh()  # messages were added or removed meanwhile
        if self._wanted:
            self._flush.start()

    def _store_pages(self, pages: dict[int, list[Message]]) -> None:
        count = self.layout.count
        for page, rows in sorted(pages.items()):
            self._pages[page] = rows[: max(0, count - page * PAGE)]
            self._pages.move_to_end(page)
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        for page in sorted(pages):
            first = self.row_at(page * PAGE)
            last = min(self.layout.rows, self.row_at(min(count, (page + 1) * PAGE) - 1) + 1) - 1
            if last >= first:
                self.dataChanged.emit(self.index(first, 0), self.index(last, 0))
                self.page_did_load.emit(first, last)

    def _on_load_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self.loading = False
            self._reading = False
            self.load_did_fail.emit(exc)
