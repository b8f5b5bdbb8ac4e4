"""The conversation of one session as a lazily filled list model.

Rows are oldest first: the archive before the compaction cut (filled on demand), a cut marker row, then
the hot history (history.json). Loading happens on the store worker; only the newest page is read when a
session opens, so a session of any length opens at once. Older pages are prepended when the reader
reaches the top (:meth:`canFetchMore` is true only then, so Qt's own "fill the viewport" fetching never
runs away loading the whole archive).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop.tasks import CancelToken, TaskRunner
from engine import Memory, Message

log = logging.getLogger("memtray.desktop.viewer.conversation")

PAGE = 500
BIG_PAGE = 5000
MessageRole = Qt.ItemDataRole.UserRole + 1
KindRole = Qt.ItemDataRole.UserRole + 2


class CutMarker:
    """The row that marks where compaction cut history.json (older messages are archive only)."""

    def __repr__(self) -> str:
        return "<compaction cut>"


CUT = CutMarker()
Row = Message | CutMarker
Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Opening:
    """What a session's first load returns (read on the store worker)."""

    session: str
    hot: list[Message]
    archived: list[Message]  # oldest first
    cut: int
    has_older: bool


def read_opening(mem: Memory, session: str, page: int = PAGE) -> Opening:
    """The hot history plus the newest page of the archive before it."""
    hot = mem.history(session)
    cut = mem.compaction_cut(session)
    ids = [m.id for m in hot if m.id is not None]
    before = min(ids) if ids else (cut or None)
    archived: list[Message] = []
    if cut or not hot:
        archived = list(reversed(mem.archive_page(session, before_id=before, limit=page)))
    return Opening(session, hot, archived, cut, len(archived) == page)


def read_older(
    mem: Memory, session: str, before_id: int, until_id: int | None, token: CancelToken
) -> list[Message]:
    """Archived messages older than ``before_id``, oldest first: one page, or down to ``until_id``."""
    if until_id is None:
        return list(reversed(mem.archive_page(session, before_id=before_id, limit=PAGE)))
    pages: list[list[Message]] = []
    bound = before_id
    while True:
        token.check()
        batch = mem.archive_page(session, before_id=bound, limit=BIG_PAGE)
        if not batch:
            break
        pages.append(batch)
        bound = batch[-1].id or bound
        if bound <= until_id:
            # one more small page so the target is not the very first row
            pages.append(mem.archive_page(session, before_id=bound, limit=20))
            break
    return [m for batch in reversed(pages) for m in reversed(batch)]


class ConversationModel(QAbstractListModel):
    """The messages of one session, oldest first, loaded lazily.

    Signals:
        session_did_load(str): a session's newest messages are in the model.
        older_did_load(int): that many older messages were prepended.
        load_did_fail(object): a load failed (the exception).
    """

    session_did_load = Signal(str)
    older_did_load = Signal(int)
    load_did_fail = Signal(object)

    def __init__(self, runner: TaskRunner, parent: Any = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.memory: Memory | None = None
        self.session: str | None = None
        self.rows: list[Row] = []
        self.cut = 0
        self.has_older = False
        self.loading = False
        self.reader_at_top = False
        self._generation = 0
        self._oldest_id: int | None = None
        self._row_of: dict[int, int] | None = None

    # -- Qt model API -----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        if role == KindRole:
            return "cut" if row is CUT else "message"
        if role == MessageRole:
            return row if isinstance(row, Message) else None
        if role == Qt.ItemDataRole.DisplayRole:
            return row.content if isinstance(row, Message) else "compaction cut"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and self.rows[index.row()] is CUT:
            return Qt.ItemFlag.ItemIsEnabled
        return super().flags(index)

    def canFetchMore(self, parent: Index) -> bool:
        return (
            not parent.isValid()
            and self.has_older
            and not self.loading
            and self.reader_at_top
            and self.memory is not None
        )

    def fetchMore(self, parent: Index) -> None:
        if self.canFetchMore(parent):
            self.load_older()

    # -- loading ----------------------------------------------------------------------------------

    def open(self, mem: Memory, session: str) -> None:
        """Show ``session``: clear, then load its newest messages on the store worker."""
        self._generation += 1
        generation = self._generation
        self.memory, self.session = mem, session
        self.beginResetModel()
        self.rows, self.cut, self.has_older, self._oldest_id, self._row_of = [], 0, False, None, None
        self.loading = True
        self.endResetModel()
        self.runner.run_query(
            lambda: read_opening(mem, session),
            lambda opening: self._on_opening_read(generation, opening),
            lambda exc: self._on_load_failed(generation, exc),
            owner=self,
        )

    def load_older(self, until_id: int | None = None, token: CancelToken | None = None) -> None:
        """Prepend older archived messages: one page, or down to message ``until_id``."""
        mem, session, before = self.memory, self.session, self._oldest_id
        if mem is None or session is None or before is None or self.loading:
            return
        self.loading = True
        generation = self._generation
        token = token or CancelToken()
        self.runner.run_query(
            lambda: read_older(mem, session, before, until_id, token),
            lambda rows: self._on_older_read(generation, rows, until_id is not None),
            lambda exc: self._on_load_failed(generation, exc),
            label="Loading older messages" if until_id is not None else None,
            token=token if until_id is not None else None,
            owner=self,
        )

    def _on_opening_read(self, generation: int, opening: Opening) -> None:
        if generation != self._generation:
            return
        rows: list[Row] = list(opening.archived)
        if opening.cut and opening.hot:
            rows.append(CUT)
        rows.extend(opening.hot)
        self.beginResetModel()
        self.rows = rows
        self.cut = opening.cut
        self.has_older = opening.has_older
        self._oldest_id = self._first_id()
        self._row_of = None
        self.loading = False
        self.endResetModel()
        log.debug(
            "session %s opened: %d hot, %d archived rows",
            opening.session,
            len(opening.hot),
            len(opening.archived),
        )
        self.session_did_load.emit(opening.session)

    def _on_older_read(self, generation: int, older: list[Message], to_target: bool) -> None:
        if generation != self._generation:
            return
        self.loading = False
        if not older:
            self.has_older = False
            self.older_did_load.emit(0)
            return
        self.beginInsertRows(QModelIndex(), 0, len(older) - 1)
        self.rows[0:0] = older
        self._row_of = None
        self.endInsertRows()
        self._oldest_id = self._first_id()
        if not to_target:
            self.has_older = len(older) == PAGE
        self.older_did_load.emit(len(older))

    def _on_load_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self.loading = False
            self.load_did_fail.emit(exc)

    def _first_id(self) -> int | None:
        for row in self.rows:
            if isinstance(row, Message) and row.id is not None:
                return row.id
        return self.cut or None

    # -- lookups ----------------------------------------------------------------------------------

    def row_of(self, message_id: int) -> int | None:
        """The row showing message ``message_id``, if it is loaded."""
        if self._row_of is None:
            self._row_of = {
                row.id: i
                for i, row in enumerate(self.rows)
                if isinstance(row, Message) and row.id is not None
            }
        return self._row_of.get(message_id)

    def message(self, row: int) -> Message | None:
        item = self.rows[row] if 0 <= row < len(self.rows) else None
        return item if isinstance(item, Message) else None

    def cut_row(self) -> int | None:
        return next((i for i, r in enumerate(self.rows) if r is CUT), None)

    @property
    def oldest_id(self) -> int | None:
        return self._oldest_id
