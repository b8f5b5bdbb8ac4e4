"""The search pane: one box; keyword, semantic or hybrid; this session or all; a time range.

It searches as you type (:class:`desktop.viewer.searcher.Searcher`: a pause for the next keystroke, one
search at a time on the store worker, never an out-of-date answer). Enter or the button searches at once.
A search asks the engine for up to :data:`desktop.viewer.hits.MAX_RESULTS` hits and reads the context of
the first page; the status says how many there are ("50 of 76 results") and "More results" reads and
shows the next page.

Results show the hit with its context (two messages before, one after), query terms highlighted in the
palette's Highlight colours (so a dark theme gets a dark-theme highlight), context lines in a muted text
colour that is still readable.
Activating a result (clicking it, or :meth:`SearchPane.activate`) asks the window to scroll the
conversation to it. Searching runs on the store worker.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QUrl, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from desktop import contrast
from desktop.a11y import accessible
from desktop.errors import describe
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.tasks import TaskRunner
from desktop.titles import name_of, tooltip_of
from desktop.viewer.delegate import header_text
from desktop.viewer.highlight import excerpt, hit_html, terms
from desktop.viewer.hits import Found, Query, Result
from desktop.viewer.searcher import Searcher, found_text
from engine import Memory, SessionInfo
from engine.search import MATCHES

log = logging.getLogger("memtray.desktop.viewer.search")

translate = QCoreApplication.translate

TIME_RANGES = (
    (QT_TRANSLATE_NOOP("Search", "Any time"), None),
    (QT_TRANSLATE_NOOP("Search", "Last day"), "1d"),
    (QT_TRANSLATE_NOOP("Search", "Last week"), "7d"),
    (QT_TRANSLATE_NOOP("Search", "Last month"), "1m"),
    (QT_TRANSLATE_NOOP("Search", "Last year"), "1y"),
)
MATCH_LABELS = {
    "keyword": QT_TRANSLATE_NOOP("Search", "Keywords"),
    "semantic": QT_TRANSLATE_NOOP("Search", "Meaning"),
    "hybrid": QT_TRANSLATE_NOOP("Search", "Keywords + meaning"),
}
SOURCE_LABELS = {
    "recent": QT_TRANSLATE_NOOP("Search", "recent"),
    "archive": QT_TRANSLATE_NOOP("Search", "archive"),
    "semantic": QT_TRANSLATE_NOOP("Search", "semantic"),
    "hybrid": QT_TRANSLATE_NOOP("Search", "hybrid"),
}


class SearchPane(QWidget):
    """Search box, options and results.

    Signals:
        search_did_finish(object): the list of :class:`Result` of the last search (its first page).
        page_did_load(object): the list of every :class:`Result` shown, after "More results".
        search_did_fail(object): the exception of a failed search.
        result_did_activate(str, int): the user chose a result (session, message id).
    """

    search_did_finish = Signal(object)
    page_did_load = Signal(object)
    search_did_fail = Signal(object)
    result_did_activate = Signal(str, int)

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.current_session: str | None = None
        self.session_info: Callable[[str], SessionInfo | None] = lambda _session: None
        """What the app knows of a session (its title heads its results); the window sets it."""
        self._words: list[str] = []
        self.searcher = Searcher(runner, self.query, self)
        self.box = QLineEdit()
        self.box.setObjectName("search-box")
        self.box.setPlaceholderText(
            translate("Search", 'Search your conversations ("quoted phrase" stays a phrase)')
        )
        self.box.setClearButtonEnabled(True)
        accessible(
            self.box,
            translate("Search", "Search"),
            translate("Search", "Searches every conversation as you type"),
        )
        self.match = QComboBox()
        self.match.setObjectName("search-match")
        accessible(
            self.match,
            translate("Search", "Match"),
            translate("Search", "Search by keywords, by meaning, or both"),
        )
        self.scope = QComboBox()
        self.scope.setObjectName("search-scope")
        accessible(
            self.scope, translate("Search", "Where"), translate("Search", "Every session, or the one open")
        )
        self.scope.addItem(translate("Search", "All sessions"), "all")
        self.scope.addItem(translate("Search", "This session"), "session")
        self.time_range = QComboBox()
        self.time_range.setObjectName("search-time")
        accessible(
            self.time_range, translate("Search", "When"), translate("Search", "How far back to search")
        )
        for label, value in TIME_RANGES:
            self.time_range.addItem(translate("Search", label), value)
        self.button = QPushButton(translate("Search", "Search"))
        self.status = QLabel("")
        self.status.setObjectName("search-status")
        self.more_button = QPushButton(translate("Search", "More results"))
        self.more_button.setObjectName("search-more")
        self.more_button.hide()
        self.view = QTextBrowser()
        self.view.setObjectName("search-results")
        accessible(
            self.view,
            translate("Search", "Results"),
            translate(
                "Search", "Each result with the messages around it; a result's link opens its conversation"
            ),
        )
        self.view.setOpenLinks(False)
        row = QHBoxLayout()
        row.addWidget(self.box, 1)
        row.addWidget(self.match)
        row.addWidget(self.scope)
        row.addWidget(self.time_range)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        counts = QHBoxLayout()
        counts.addWidget(self.status, 1)
        counts.addWidget(self.more_button)
        layout.addLayout(row)
        layout.addLayout(counts)
        layout.addWidget(self.view, 1)
        self.set_semantic_available(False)
        self.box.returnPressed.connect(self.search)
        self.box.textChanged.connect(self._on_typed)
        for box in (self.match, self.scope, self.time_range):
            box.currentIndexChanged.connect(self._on_typed)
        self.button.clicked.connect(self.search)
        self.more_button.clicked.connect(self.show_more)
        self.searcher.search_did_start.connect(self._on_search_did_start)
        self.searcher.search_did_finish.connect(self._on_found)
        self.searcher.page_did_load.connect(self._on_page)
        self.searcher.search_did_fail.connect(self._on_failure)
        self.view.anchorClicked.connect(self._on_anchor_clicked)
        self.view.highlighted.connect(self._on_anchor_hovered)
        self.view.installEventFilter(self)

    def set_semantic_available(self, available: bool) -> None:
        """Offer semantic and hybrid search only when the engine has the semantic tier."""
        current = self.match.currentData()
        self.match.clear()
        hybrid_first = sorted(MATCHES, key=lambda match: match != "hybrid")  # the engine's, the best first
        choices = hybrid_first if available else ["keyword"]
        for value in choices:
            self.match.addItem(translate("Search", MATCH_LABELS[value]), value)
        index = self.match.findData(current)
        self.match.setCurrentIndex(max(0, index))
        self.match.setToolTip(
            ""
            if available
            else translate("Search", "Search by meaning becomes available with the semantic index")
        )

    @property
    def memory(self) -> Memory | None:
        return self.searcher.memory

    @memory.setter
    def memory(self, mem: Memory | None) -> None:
        self.searcher.memory = mem

    @property
    def results(self) -> list[Result]:
        """The results shown (the first page, and each page "More results" added)."""
        return self.searcher.results

    @property
    def found(self) -> Found | None:
        return self.searcher.found

    def query(self) -> Query | None:
        """The search the pane's box and options describe (None while the box is blank)."""
        session = self.current_session if self.scope.currentData() == "session" else None
        return Query.typed(self.box.text(), self.match.currentData(), session, self.time_range.currentData())

    def search(self) -> None:
        """Search for the box's text now (after the running search, if one runs)."""
        self.searcher.search()

    def show_more(self) -> None:
        """Read and show the next page of the last search's hits."""
        if self.searcher.has_more:
            self.more_button.setEnabled(False)
            self.searcher.more()

    def activate(self, index: int) -> None:
        """Act as if result ``index`` was clicked."""
        message = self.results[index].hit.message
        if message.session and message.id is not None:
            self.result_did_activate.emit(message.session, message.id)

    def _on_typed(self, *_args: object) -> None:
        self.searcher.typed()

    def _on_search_did_start(self) -> None:
        self.status.setText(translate("Search", "Searching…"))

    def _on_found(self, found: Found) -> None:
        self._words = terms(found.query.text)
        self._show_results()
        self.search_did_finish.emit(self.results)

    def _on_page(self, results: list[Result]) -> None:
        self.more_button.setEnabled(True)
        self._show_results()
        self.page_did_load.emit(results)

    def _show_results(self) -> None:
        found = self.found
        total = len(found.hits) if found is not None else 0
        self.status.setText(found_text(found, len(self.results)))
        self.status.setToolTip(
            translate(
                "Search",
                "New messages are embedded in the background; until they are, meaning search cannot rank "
                "them, and keywords still find them.",
            )
            if found is not None and found.partial
            else ""
        )
        self.more_button.setVisible(len(self.results) < total)
        self.view.setHtml(self.results_html(self.results))

    def _on_failure(self, exc: BaseException) -> None:
        self.more_button.setEnabled(True)
        message = describe(exc, translate("Search", "searching"))
        self.status.setText(message.text)
        self.more_button.hide()
        self.view.clear()
        self.search_did_fail.emit(exc)

    def results_html(self, results: list[Result]) -> str:
        palette = self.view.palette()
        mark = contrast.mark_style(palette)
        quiet = f"color:{contrast.muted(palette).name()};"
        blocks = []
        for i, result in enumerate(results):
            hit = result.hit.message
            lines = []
            for m in result.context:
                is_hit = m.id == hit.id
                text = (
                    hit_html(m.content, self._words, result.hit.passage, mark=mark)
                    if is_hit
                    else html.escape(excerpt(m.content, [], 160))
                )
                style = "" if is_hit else quiet
                head = html.escape(header_text(m.role, m.sender, m.send_at))
                lines.append(f'<div style="{style}margin-left:8px;"><small>{head}</small><br>{text}</div>')
            source = SOURCE_LABELS.get(result.hit.source)
            where = translate("Search", source) if source else result.hit.source
            name = name_of(self.session_info(hit.session or ""), hit.session or "")
            blocks.append(
                f'<div style="margin-bottom:10px;"><a href="memtray:result/{i}"><b>{html.escape(name)}</b></a>'
                f" <small>({html.escape(where)})</small>{''.join(lines)}</div><hr>"
            )
        return "".join(blocks)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The results' new palette (the theme switched to dark, say): show them in its colours."""
        if watched is self.view and event.type() == QEvent.Type.PaletteChange and self.results:
            self.view.setHtml(self.results_html(self.results))
        return False

    def result_tooltip(self, index: int) -> str:
        """The whole title (and id) of result ``index``'s session: its heading may be elided."""
        session = self.results[index].hit.message.session or ""
        return tooltip_of(self.session_info(session), session)

    def _on_anchor_hovered(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("memtray:result/") and int(text.rsplit("/", 1)[1]) < len(self.results):
            QToolTip.showText(QCursor.pos(), self.result_tooltip(int(text.rsplit("/", 1)[1])), self.view)
        else:
            QToolTip.hideText()

    def _on_anchor_clicked(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("memtray:result/"):
            self.activate(int(text.rsplit("/", 1)[1]))
