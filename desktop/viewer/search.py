"""The search pane: one box; keyword, semantic or hybrid; this session or all; a time range.

Results show the hit with its context (two messages before, one after), query terms highlighted in the
palette's Highlight colours (so a dark theme gets a dark-theme highlight), context lines in a muted text
colour that is still readable.
Activating a result (clicking it, or :meth:`SearchPane.activate`) asks the window to scroll the
conversation to it. Searching runs on the store worker.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QUrl, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop import contrast
from desktop.errors import describe
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.tasks import TaskRunner
from desktop.viewer.delegate import header_text
from desktop.viewer.highlight import excerpt, highlight_html, terms
from engine import Hit, Memory, Message

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


@dataclass(frozen=True)
class Result:
    """A hit with its context (oldest first, the hit included)."""

    hit: Hit
    context: list[Message]


@dataclass(frozen=True)
class Query:
    text: str
    match: str
    session: str | None
    time_range: str | None
    limit: int = 50


def run_search(mem: Memory, query: Query) -> list[Result]:
    """Search, then read each hit's 2-before/1-after context (runs on the store worker)."""
    hits = mem.search(
        query.text,
        session=query.session,
        match=query.match,
        scope="all",
        time_range=query.time_range,
        limit=query.limit,
    )
    results = []
    for hit in hits:
        m = hit.message
        context = mem.around(m.session, m.id, before=2, after=1) if m.session and m.id is not None else [m]
        results.append(Result(hit, context or [m]))
    return results


class SearchPane(QWidget):
    """Search box, options and results.

    Signals:
        search_did_finish(object): the list of :class:`Result` of the last search.
        search_did_fail(object): the exception of a failed search.
        result_did_activate(str, int): the user chose a result (session, message id).
    """

    search_did_finish = Signal(object)
    search_did_fail = Signal(object)
    result_did_activate = Signal(str, int)

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.memory: Memory | None = None
        self.current_session: str | None = None
        self.results: list[Result] = []
        self._words: list[str] = []
        self.box = QLineEdit()
        self.box.setObjectName("search-box")
        self.box.setPlaceholderText(
            translate("Search", 'Search your conversations ("quoted phrase" stays a phrase)')
        )
        self.box.setClearButtonEnabled(True)
        self.match = QComboBox()
        self.match.setObjectName("search-match")
        self.scope = QComboBox()
        self.scope.setObjectName("search-scope")
        self.scope.addItem(translate("Search", "All sessions"), "all")
        self.scope.addItem(translate("Search", "This session"), "session")
        self.time_range = QComboBox()
        self.time_range.setObjectName("search-time")
        for label, value in TIME_RANGES:
            self.time_range.addItem(translate("Search", label), value)
        self.button = QPushButton(translate("Search", "Search"))
        self.status = QLabel("")
        self.status.setObjectName("search-status")
        self.view = QTextBrowser()
        self.view.setObjectName("search-results")
        self.view.setOpenLinks(False)
        row = QHBoxLayout()
        row.addWidget(self.box, 1)
        row.addWidget(self.match)
        row.addWidget(self.scope)
        row.addWidget(self.time_range)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.view, 1)
        self.set_semantic_available(False)
        self.box.returnPressed.connect(self.search)
        self.button.clicked.connect(self.search)
        self.view.anchorClicked.connect(self._on_anchor_clicked)
        self.view.installEventFilter(self)

    def set_semantic_available(self, available: bool) -> None:
        """Offer semantic and hybrid search only when the engine has the semantic tier."""
        current = self.match.currentData()
        self.match.clear()
        choices = ("hybrid", "keyword", "semantic") if available else ("keyword",)
        for value in choices:
            self.match.addItem(translate("Search", MATCH_LABELS[value]), value)
        index = self.match.findData(current)
        self.match.setCurrentIndex(max(0, index))
        self.match.setToolTip(
            ""
            if available
            else translate("Search", "Search by meaning becomes available with the semantic index")
        )

    def query(self) -> Query:
        session = self.current_session if self.scope.currentData() == "session" else None
        return Query(
            self.box.text().strip(), self.match.currentData(), session, self.time_range.currentData()
        )

    def search(self) -> None:
        mem = self.memory
        query = self.query()
        if mem is None or not query.text:
            return
        self._words = terms(query.text)
        self.status.setText(translate("Search", "Searching…"))
        self.runner.run_query(lambda: run_search(mem, query), self._on_results, self._on_failure)

    def activate(self, index: int) -> None:
        """Act as if result ``index`` was clicked."""
        message = self.results[index].hit.message
        if message.session and message.id is not None:
            self.result_did_activate.emit(message.session, message.id)

    def _on_results(self, results: list[Result]) -> None:
        self.results = results
        self.status.setText(
            translate("Search", "%n result(s)", "", len(results))
            if results
            else translate("Search", "No results.")
        )
        self.view.setHtml(self.results_html(results))
        self.search_did_finish.emit(results)

    def _on_failure(self, exc: BaseException) -> None:
        message = describe(exc, translate("Search", "searching"))
        self.status.setText(message.text)
        self.results = []
        self.view.clear()
        self.search_did_fail.emit(exc)

    def results_html(self, results: list[Result]) -> str:
        palette = self.view.palette()
        background, foreground = contrast.highlight(palette)
        mark = f"background-color:{background.name()};color:{foreground.name()};"
        quiet = f"color:{contrast.muted(palette).name()};"
        blocks = []
        for i, result in enumerate(results):
            hit = result.hit.message
            lines = []
            for m in result.context:
                is_hit = m.id == hit.id
                text = (
                    highlight_html(excerpt(m.content, self._words), self._words, mark=mark)
                    if is_hit
                    else html.escape(excerpt(m.content, [], 160))
                )
                style = "" if is_hit else quiet
                head = html.escape(header_text(m.role, m.sender, m.send_at))
                lines.append(f'<div style="{style}margin-left:8px;"><small>{head}</small><br>{text}</div>')
            source = SOURCE_LABELS.get(result.hit.source)
            where = translate("Search", source) if source else result.hit.source
            blocks.append(
                f'<div style="margin-bottom:10px;"><a href="memtray:result/{i}"><b>{html.escape(hit.session or "")}</b></a>'
                f" <small>({html.escape(where)})</small>{''.join(lines)}</div><hr>"
            )
        return "".join(blocks)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The results' new palette (the theme switched to dark, say): show them in its colours."""
        if watched is self.view and event.type() == QEvent.Type.PaletteChange and self.results:
            self.view.setHtml(self.results_html(self.results))
        return False

    def _on_anchor_clicked(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("memtray:result/"):
            self.activate(int(text.rsplit("/", 1)[1]))
