"""Status-bar progress for long work, with a Cancel button when the running task can be cancelled.

:class:`StatusProgress` follows the task runner: the bar is busy (no range) until the task reports
``done/total`` through :meth:`desktop.tasks.TaskRunner.report_progress`; then it fills.

:class:`EmbeddingProgress` follows the semantic tier through :class:`desktop.state.AppState`: the
status line's embedding part ("Embedding 3,200 of 50,000 · about 20 min", "Rebuilding the search index…",
"Embedding paused", :mod:`desktop.status`) with a bar that fills as the backlog (read on the store worker by
the state refresh) or a re-embedding after an embedder switch goes down. :class:`StatusLine` shows the
rest of the status ("Summaries paused", "Database damaged — Repair…" as a link, "Up to date"). None of
them reads anything itself.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop.state import AppState
from desktop.status import EMBEDDING, OTHER, PAUSED, status_of
from desktop.tasks import Task, TaskRunner

translate = QCoreApplication.translate


class StatusProgress(QWidget):
    """Shows the oldest labelled task in flight (and how many more); hidden when idle."""

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.label = QLabel("")
        self.bar = QProgressBar()
        self.bar.setObjectName("progress-bar")
        self.bar.setRange(0, 0)
        self.bar.setMaximumWidth(120)
        self.cancel = QPushButton(translate("Progress", "Cancel"))
        self.cancel.setObjectName("progress-cancel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.cancel.clicked.connect(self._on_cancel_clicked)
        runner.busy_did_change.connect(self._on_busy_did_change)
        runner.task_did_progress.connect(self._on_task_did_progress)
        self._on_busy_did_change(len(runner.active))

    def current(self) -> Task | None:
        active = self.runner.active
        return active[0] if active else None

    def _on_busy_did_change(self, count: int) -> None:
        task = self.current()
        self.setVisible(task is not None)
        if task is None:
            return
        if count > 1:
            text = translate("Progress", "{task}… (+{more} more)").format(task=task.label, more=count - 1)
        else:
            text = translate("Progress", "{task}…").format(task=task.label)
        self.label.setText(text)
        self.cancel.setVisible(task.cancellable)
        self.cancel.setEnabled(not task.token.cancelled)
        self._show_progress(task)

    def _on_task_did_progress(self, task: Task, _done: int, _total: int) -> None:
        if task is self.current():
            self._show_progress(task)

    def _show_progress(self, task: Task) -> None:
        reported = self.runner.progress(task)
        if reported is None or reported[1] <= 0:
            self.bar.setRange(0, 0)
            return
        done, total = reported
        self.bar.setRange(0, total)
        self.bar.setValue(min(done, total))

    def _on_cancel_clicked(self) -> None:
        task = self.current()
        if task is not None and task.cancellable:
            task.token.cancel()
            self.cancel.setEnabled(False)
            self.label.setText(translate("Progress", "{task}: cancelling…").format(task=task.label))


class EmbeddingProgress(QWidget):
    """The embedding part of the status, with its bar; hidden when there is none."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.label = QLabel("")
        self.label.setObjectName("embedding-label")
        self.bar = QProgressBar()
        self.bar.setObjectName("embedding-bar")
        self.bar.setMaximumWidth(120)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        state.state_did_change.connect(self.update_view)
        state.reembed_did_progress.connect(self._on_reembed_did_progress)
        self.update_view()

    def update_view(self) -> None:
        """Show what the state holds (no I/O)."""
        item = status_of(self.state).of(EMBEDDING)
        if item is None:
            self.setVisible(False)
            return
        self.label.setText(item.text)
        backlog = self.state.backlog
        if item.level != PAUSED and backlog.total > 0:
            self.bar.setRange(0, backlog.total)
            self.bar.setValue(min(backlog.done, backlog.total))
        else:
            self.bar.setRange(0, 0)
        self.bar.setVisible(item.level != PAUSED)
        self.setVisible(True)

    def _on_reembed_did_progress(self, _done: int, _total: int) -> None:
        self.update_view()


class StatusLine(QLabel):
    """The status lines the other status-bar widgets do not show (a damaged database's as a link).

    Signals:
        repair_requested(): the "Repair…" link was clicked.
    """

    repair_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.setObjectName("status-line")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.linkActivated.connect(self._on_link_activated)
        state.state_did_change.connect(self.update_view)
        self.update_view()

    def plain_text(self) -> str:
        """The line as a person reads it (without the link's markup)."""
        return QTextDocumentFragment.fromHtml(self.text()).toPlainText()

    def update_view(self) -> None:
        status = status_of(self.state)
        text = status.text((OTHER,))
        if self.state.damaged:
            text = f'<a href="repair">{html.escape(text)}</a>'
        else:
            text = html.escape(text)
        self.setText(text)
        self.setVisible(bool(text))

    def _on_link_activated(self, link: str) -> None:
        if link == "repair":
            self.repair_requested.emit()
