"""The summary panel: key decisions, the current discussion, past discussions, the cursor, "summarize now".

Built against :class:`desktop.seams.SummarySource`; the window adds it only when the engine has a
summarizer. Loading runs on the store worker; "summarize now" is handed to the operations (network pool).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from desktop.a11y import accessible
from desktop.errors import describe
from desktop.seams import SummarySource, SummaryView
from desktop.tasks import TaskRunner
from desktop.viewer.timefmt import local_time
from engine.summary import CurrentDiscussion, PastDiscussion

translate = QCoreApplication.translate


def _said(d: CurrentDiscussion | PastDiscussion) -> bool:
    """Whether the discussion holds anything to show (the summarizer leaves an empty one)."""
    return any((d.topic, d.description, d.direction, getattr(d, "perspectives", "")))


def _discussion_html(d: CurrentDiscussion | PastDiscussion) -> str:
    topic = d.topic or translate("Summary", "(untitled)")
    parts = [f"<b>{html.escape(topic)}</b>"]
    last_discussed = getattr(d, "last_discussed", "")
    if last_discussed:
        parts.append(f" <small>({html.escape(last_discussed)})</small>")
    if d.description:
        parts.append(f"<br>{html.escape(d.description)}")
    for template, value in (
        (translate("Summary", "Perspectives: {text}"), getattr(d, "perspectives", "")),
        (translate("Summary", "Direction: {text}"), d.direction),
    ):
        if value:
            parts.append("<br>" + template.format(text=html.escape(value)))
    return "".join(parts)


def summary_html(view: SummaryView | None) -> str:
    if view is None:
        return "<p>{}</p>".format(
            html.escape(
                translate("Summary", "No summary yet. Summaries are written when a conversation grows.")
            )
        )
    summary = view.summary
    none = "<p><i>{}</i></p>".format(html.escape(translate("Summary", "none")))
    out = ["<h3>{}</h3>".format(html.escape(translate("Summary", "Key decisions")))]
    out.append(
        "<ul>" + "".join(f"<li>{html.escape(k)}</li>" for k in summary.key_decisions) + "</ul>"
        if summary.key_decisions
        else none
    )
    current = summary.current_discussion
    out.append("<h3>{}</h3>".format(html.escape(translate("Summary", "Current discussion"))))
    out.append(f"<p>{_discussion_html(current)}</p>" if _said(current) else none)
    out.append("<h3>{}</h3>".format(html.escape(translate("Summary", "Past discussions"))))
    past = [d for d in summary.past_discussions if _said(d)]
    out.append("<ul>" + "".join(f"<li>{_discussion_html(d)}</li>" for d in past) + "</ul>" if past else none)
    return "".join(out)


class SummaryPanel(QWidget):
    """One session's summary.

    Signals:
        summarize_requested(str): the user pressed "Summarize now" for this session.
        summary_did_load(object): the :class:`SummaryView` (or None) now shown.
    """

    summarize_requested = Signal(str)
    summary_did_load = Signal(object)

    def __init__(self, runner: TaskRunner, source: SummarySource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.source = source
        self.session: str | None = None
        self.cursor_label = QLabel("")
        self.cursor_label.setObjectName("summary-cursor")
        self.button = QPushButton(translate("Summary", "Summarize now"))
        self.button.setEnabled(False)
        self.view = QTextBrowser()
        self.view.setObjectName("summary-view")
        self.view.setTabChangesFocus(True)
        accessible(
            self.view,
            translate("Summary", "Summary"),
            translate("Summary", "The session's rolling summary: its decisions and discussions"),
        )
        top = QHBoxLayout()
        top.addWidget(self.cursor_label, 1)
        top.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self.button.clicked.connect(self._on_button_clicked)

    def show_session(self, session: str) -> None:
        self.session = session
        self.button.setEnabled(True)
        self.cursor_label.setText(translate("Summary", "Loading…"))
        source = self.source
        self.runner.run_query(
            lambda: source.load(session),
            lambda view: self._on_loaded(session, view),
            lambda exc: self._on_failed(session, exc),
            owner=self,
        )

    def close_session(self) -> None:
        """Show no summary (its session was removed)."""
        self.session = None
        self.button.setEnabled(False)
        self.cursor_label.setText("")
        self.view.clear()

    def _on_loaded(self, session: str, view: SummaryView | None) -> None:
        if session != self.session:
            return
        self.cursor_label.setText(
            translate("Summary", "Summarized up to {time}").format(time=local_time(view.cursor_ns))
            if view and view.cursor_ns
            else translate("Summary", "Not summarized yet")
        )
        self.view.setHtml(summary_html(view))
        self.summary_did_load.emit(view)

    def _on_failed(self, session: str, exc: BaseException) -> None:
        if session == self.session:
            self.cursor_label.setText(describe(exc, translate("Summary", "loading the summary")).text)

    def _on_button_clicked(self) -> None:
        if self.session:
            self.summarize_requested.emit(self.session)
