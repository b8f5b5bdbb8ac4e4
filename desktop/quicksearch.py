"""Search memory…: one box over every conversation, opened from the tray, the menu bar or a global shortcut.

It searches as you type (:class:`desktop.viewer.searcher.Searcher`: the first keystroke at once, then a
short pause for the next one, one search at a time on the store worker), over all sessions and all time,
by keywords and meaning when the semantic tier is there. Meaning joins once the model is loaded and warm
(:meth:`desktop.state.AppState.warm_up_meaning`, started with the memory): until then the results come
by keywords, so the first search after start does not wait for the model, and they are searched again
by meaning when it is ready. Each result is the session's title, who wrote the message and when, and the part
of it that matched, the query's words marked in the palette's highlight colours. Up and Down move through
the results (Down past the last one reads the next page), Enter opens the conversation at the chosen
message in the viewer and closes this window, Esc closes it. The count says how many results there are
("50 of 76 results"), and "More results" reads the next page. The last line says whether the global
shortcut works (:class:`desktop.hotkeys.ShortcutStatus`).
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QCloseEvent,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop import contrast
from desktop.a11y import accessible
from desktop.errors import describe
from desktop.hotkeys import ShortcutStatus
from desktop.icons import app_icon
from desktop.placement import fit_to_screen
from desktop.state import AppState
from desktop.titles import name_of, tooltip_of
from desktop.viewer.delegate import role_name
from desktop.viewer.highlight import hit_html, terms
from desktop.viewer.hits import Found, Query, Result
from desktop.viewer.searcher import QUICK_TYPING_MS, Searcher, found_text
from desktop.viewer.timefmt import local_time
from desktop.windowkeys import add_close_keys

log = logging.getLogger("memtray.desktop.quicksearch")

translate = QCoreApplication.translate

MINIMUM = QSize(480, 320)
EXCERPT_CHARS = 220
PAD = 6
Index = QModelIndex | QPersistentModelIndex
HtmlRole = Qt.ItemDataRole.UserRole + 1


class ResultsModel(QAbstractListModel):
    """The results shown, as rich text rows (the title line and the matched part of the message)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.results: list[Result] = []
        self.rows_html: list[str] = []
        self.tooltip: Callable[[Result], str] = lambda _result: ""
        """A row's tooltip: the window sets it to the whole title of the result's session."""

    def set_results(self, results: list[Result], rows_html: list[str]) -> None:
        self.beginResetModel()
        self.results, self.rows_html = list(results), rows_html
        self.endResetModel()

    def append(self, results: list[Result], rows_html: list[str]) -> None:
        if not results:
            return
        first = len(self.results)
        self.beginInsertRows(QModelIndex(), first, first + len(results) - 1)
        self.results += results
        self.rows_html += rows_html
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.results)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.results):
            return None
        if role == HtmlRole:
            return self.rows_html[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.results[index.row()].hit.message.content
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(self.results[index.row()]) or None
        return None


class ResultDelegate(QStyledItemDelegate):
    """Paints a row's rich text; every row is three lines high (the title line, two of the message). The current row gets a quiet tint of
    the highlight colour (the marks keep the full one) and a bar on its left."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        line = QFontMetrics(option.font).lineSpacing()
        return QSize(200, line * 3 + line // 2 + 2 * PAD)  # rich text lines are a little taller

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        painter.save()
        rect: QRect = option.rect
        palette: QPalette = option.palette
        base = palette.color(QPalette.ColorRole.Base)
        if option.state & QStyle.StateFlag.State_Selected:
            accent = palette.color(QPalette.ColorRole.Highlight)
            painter.fillRect(rect, contrast.mix(base, accent, 0.28))
            painter.fillRect(QRect(rect.left(), rect.top(), 3, rect.height()), accent)
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(0)
        doc.setHtml(index.data(HtmlRole) or "")
        doc.setTextWidth(rect.width() - 2 * PAD)
        painter.translate(rect.left() + PAD, rect.top() + PAD)
        clip = QRect(0, 0, rect.width() - 2 * PAD, rect.height() - 2 * PAD)
        painter.setClipRect(clip)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = palette
        context.clip = clip.toRectF()
        doc.documentLayout().draw(painter, context)
        painter.restore()
        painter.save()
        painter.setPen(palette.color(QPalette.ColorRole.Midlight))
        painter.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom())
        painter.restore()


class QuickSearchWindow(QWidget):
    """The quick search window.

    Signals:
        result_did_activate(str, int): open this session at this message (the window has closed).
        search_did_finish(object): the results shown after a search (its first page).
        page_did_load(object): every result shown, after a further page.
    """

    result_did_activate = Signal(str, int)
    search_did_finish = Signal(object)
    page_did_load = Signal(object)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("quick-search")
        self.state = state
        self.setWindowTitle(translate("QuickSearch", "memtray — search memory"))
        add_close_keys(self, escape_hides=False)  # Esc: its own keys (in the box, and the window)
        self.setWindowIcon(app_icon())
        self._words: list[str] = []
        self._open_when_found = False
        self.searcher = Searcher(state.runner, self._query, self, typing_ms=QUICK_TYPING_MS, leading=True)
        self.box = QLineEdit()
        self.box.setObjectName("quick-search-box")
        self.box.setPlaceholderText(translate("QuickSearch", "Search every conversation…"))
        self.box.setClearButtonEnabled(True)
        accessible(
            self.box,
            translate("QuickSearch", "Search memory"),
            translate("QuickSearch", "Up and Down choose a result, Enter opens it, Esc closes this window"),
        )
        self.model = ResultsModel(self)
        self.model.tooltip = self._tooltip
        self.list = QListView()
        self.list.setObjectName("quick-search-results")
        accessible(self.list, translate("QuickSearch", "Results"))
        self.list.setModel(self.model)
        self.list.setItemDelegate(ResultDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the box
        self.status = QLabel("")
        self.status.setObjectName("quick-search-status")
        self.more_button = QPushButton(translate("Search", "More results"))
        self.more_button.setObjectName("quick-search-more")
        self.more_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.more_button.hide()
        self.hint = QLabel("")
        self.hint.setObjectName("quick-search-hint")
        self.hint.setWordWrap(True)
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        counts = QHBoxLayout()
        counts.addWidget(self.status, 1)
        counts.addWidget(self.more_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.box)
        layout.addLayout(counts)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        fit_to_screen(self, 0.45, 0.55, MINIMUM)
        self.box.textChanged.connect(self._on_text_changed)
        self.box.installEventFilter(self)
        self.list.clicked.connect(lambda index: self.activate(index.row()))
        self.more_button.clicked.connect(self.show_more)
        self.searcher.search_did_start.connect(self._on_search_did_start)
        self.searcher.search_did_finish.connect(self._on_found)
        self.searcher.page_did_load.connect(self._on_page)
        self.searcher.search_did_fail.connect(self._on_failure)
        state.memory_did_open.connect(self._on_memory_did_open)
        state.memory_did_close.connect(self._on_memory_did_open)  # let go of it (None) for a repair
        state.meaning_did_become_ready.connect(self._on_meaning_did_become_ready)
        state.session_did_go.connect(lambda session: self.searcher.drop(session))
        state.messages_did_go.connect(lambda session, ids: self.searcher.drop(session, ids or None))
        self._on_memory_did_open()
        self.set_shortcut_status(None)

    # -- public -----------------------------------------------------------------------------------

    def present(self) -> None:
        """Show, raise and focus the window, the box's text selected (typing replaces it)."""
        self.show()
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.raise_()
        self.activateWindow()
        self.box.setFocus()
        self.box.selectAll()

    def set_shortcut_status(self, status: ShortcutStatus | None) -> None:
        """Say on the last line whether the global shortcut opens this window."""
        self.hint.setText(status.text if status is not None else "")
        self.hint.setVisible(status is not None)

    @property
    def results(self) -> list[Result]:
        return self.model.results

    def current(self) -> int:
        index = self.list.currentIndex()
        return index.row() if index.isValid() else -1

    def step(self, step: int) -> None:
        """Make the result ``step`` rows away the current one (Down past the last reads the next page)."""
        count = self.model.rowCount()
        if not count:
            return
        row = self.current() + step if self.current() >= 0 else (0 if step > 0 else count - 1)
        if row >= count and self.searcher.has_more:
            self.show_more()
        row = max(0, min(count - 1, row))
        self.list.setCurrentIndex(self.model.index(row, 0))
        self.list.scrollTo(self.model.index(row, 0))

    def activate(self, row: int | None = None) -> None:
        """Open result ``row`` (default: the current one, else the first) and close the window."""
        row = self.current() if row is None else row
        if row < 0 and self.model.rowCount():
            row = 0
        if not 0 <= row < self.model.rowCount():
            return
        message = self.model.results[row].hit.message
        if message.session and message.id is not None:
            self.hide()
            self.result_did_activate.emit(message.session, message.id)

    def show_more(self) -> None:
        if self.searcher.has_more:
            self.more_button.setEnabled(False)
            self.searcher.more()

    # -- searching --------------------------------------------------------------------------------

    def _query(self) -> Query | None:
        meaning = self.state.semantic and self.state.meaning_ready  # keywords at once, meaning once it loaded
        return Query.typed(self.box.text(), "hybrid" if meaning else "keyword")

    def _on_memory_did_open(self) -> None:
        self.searcher.memory = self.state.memory

    def _on_meaning_did_become_ready(self) -> None:
        """Results found by keywords while the model loaded: search again, by meaning too."""
        found = self.searcher.found
        if found is not None and found.query.match == "keyword" and self._query() is not None:
            self.searcher.search()

    def _on_text_changed(self, text: str) -> None:
        self._open_when_found = False
        if not text.strip():
            self.model.set_results([], [])
            self.status.setText("")
            self.more_button.hide()
        self.searcher.typed()

    def _on_search_did_start(self) -> None:
        self.status.setText(translate("Search", "Searching…"))

    def _on_found(self, found: Found) -> None:
        self._words = terms(found.query.text)
        results = self.searcher.results
        self.model.set_results(results, [self.row_html(r) for r in results])
        if results:
            self.list.setCurrentIndex(self.model.index(0, 0))
        self._show_count()
        self.search_did_finish.emit(self.results)
        if self._open_when_found:
            self._open_when_found = False
            self.activate()

    def _on_page(self, results: list[Result]) -> None:
        self.more_button.setEnabled(True)
        new = results[self.model.rowCount() :]
        self.model.append(new, [self.row_html(r) for r in new])
        self._show_count()
        self.page_did_load.emit(self.results)

    def _on_failure(self, exc: BaseException) -> None:
        self._open_when_found = False
        self.more_button.setEnabled(True)
        self.more_button.hide()
        self.model.set_results([], [])
        self.status.setText(describe(exc, translate("Search", "searching")).text)

    def _show_count(self) -> None:
        self.status.setText(found_text(self.searcher.found, self.model.rowCount()))
        self.more_button.setVisible(self.searcher.has_more)

    def _tooltip(self, result: Result) -> str:
        """The whole title (and id) of the result's session: the row shows it elided."""
        session = result.hit.message.session or ""
        return tooltip_of(self.state.session(session), session)

    def row_html(self, result: Result) -> str:
        """A result as rich text: ``title · role · time`` and the marked excerpt of the message."""
        palette = self.list.palette()
        mark = contrast.mark_style(palette)
        quiet = contrast.muted(palette).name()
        message = result.hit.message
        session = message.session or ""
        title = name_of(self.state.session(session), session)
        where = " · ".join(
            p for p in (role_name(message.role), message.sender, local_time(message.send_at)) if p
        )
        text = hit_html(message.content, self._words, result.hit.passage, mark=mark, width=EXCERPT_CHARS)
        return (
            f"<b>{html.escape(title)}</b> <span style='color:{quiet};'>· {html.escape(where)}</span>"
            f"<br>{text}"
        )

    # -- keys and closing -------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.box and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            steps = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 5, Qt.Key.Key_PageUp: -5}
            if key in steps:
                self.step(steps[Qt.Key(key)])
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self.searcher.pending:  # typed, not yet answered: open the first result of the answer
                    self._open_when_found = True
                    if not self.searcher.running:
                        self.searcher.search()
                else:
                    self.activate()
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.model.rowCount():
            self.model.set_results(self.model.results, [self.row_html(r) for r in self.model.results])

    def closeEvent(self, event: QCloseEvent) -> None:
        event.ignore()
        self.hide()
