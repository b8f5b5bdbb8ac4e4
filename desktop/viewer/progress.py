"""Status-bar progress for long work, with a Cancel button when the running task can be cancelled.

The bar is busy (no range) until the task reports ``done/total`` through
:meth:`desktop.tasks.TaskRunner.report_progress`; then it fills.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop.tasks import Task, TaskRunner


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
        self.cancel = QPushButton("Cancel")
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
        more = f" (+{count - 1} more)" if count > 1 else ""
        self.label.setText(f"{task.label}…{more}")
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
            self.label.setText(f"{task.label}: cancelling…")
