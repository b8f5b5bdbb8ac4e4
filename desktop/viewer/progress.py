"""Status-bar progress for long work, with a Cancel button when the running task can be cancelled.

:class:`StatusProgress` follows the task runner: the bar is busy (no range) until the task reports
``done/total`` through :meth:`desktop.tasks.TaskRunner.report_progress`; then it fills.

:class:`EmbeddingProgress` follows the semantic tier through :class:`desktop.state.AppState`: "Embedding
N messages…" while the backlog (read on the store worker by the state refresh) is not empty, and a
determinate bar while everything is re-embedded after an embedder switch. Neither reads anything itself.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop.state import AppState
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
    """The embedding backlog or the re-embedding in progress; hidden when there is neither."""

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
        reembedding = self.state.reembedding
        embedding = self.state.snapshot.embedding
        if reembedding is not None:
            done, total = reembedding
            self.label.setText(
                translate("Progress", "Re-embedding messages: {done} of {total}…").format(
                    done=f"{done:,}", total=f"{total:,}"
                )
            )
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            self.setVisible(True)
        elif embedding is not None and embedding.queued > 0:
            count = embedding.queued
            self.label.setText(translate("Progress", "Embedding %Ln message(s)…", "", count))
            self.bar.setRange(0, 0)
            self.setVisible(True)
        elif embedding is not None and embedding.rebuilding > 0:
            count = embedding.rebuilding
            self.label.setText(
                translate("Progress", "Rebuilding the search index of %Ln session(s)…", "", count)
            )
            self.bar.setRange(0, 0)
            self.setVisible(True)
        else:
            self.setVisible(False)

    def _on_reembed_did_progress(self, _done: int, _total: int) -> None:
        self.update_view()
