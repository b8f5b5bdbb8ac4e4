"""File ▸ Import…: read another tool's export into sessions, on the store worker, and say what happened.

:class:`ImportDialog` (non-modal) asks for the format (``engine.importers.readers()``: jsonl, agenvoy,
chatgpt, claude), the file or folder, and optionally the session to import into. :func:`start_import` runs
the reader and ``Memory.import_sessions`` on the store worker: the reader checks the whole file before
anything is stored; then the progress callback (called on the worker after each conversation) is handed to
the GUI thread through :meth:`desktop.tasks.TaskRunner.report_progress`, where the status bar fills its bar.
The task is cancellable between conversations (importing again later adds only what is missing).
:func:`import_words` says what the import did.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.tasks import CancelToken, Task, TaskRunner
from engine import Memory
from engine.importers import DESCRIPTIONS, ImportReport, readers

log = logging.getLogger("memtray.desktop.viewer.importing")

FORMATS = (
    ("chatgpt", "ChatGPT data export"),
    ("claude", "Claude data export"),
    ("agenvoy", "Agenvoy sessions folder"),
    ("jsonl", "JSON Lines (one message per line)"),
)
FILTERS = {
    "jsonl": "JSON Lines (*.jsonl *.json);;All files (*)",
    "chatgpt": "ChatGPT export (conversations.json *.zip);;All files (*)",
    "claude": "Claude export (conversations.json *.zip);;All files (*)",
}


def import_words(report: ImportReport, seconds: float) -> str:
    """Say what an import did, in one or two sentences."""
    took = f"{seconds:.1f} s"
    if not report.sessions:
        text = f"The file held no conversation to import ({took})."
    else:
        convs = f"{report.sessions:,} conversation{'s' if report.sessions != 1 else ''}"
        text = (
            f"Read {convs} in {took}: {report.messages_added:,} message"
            f"{'s' if report.messages_added != 1 else ''} added"
        )
        if report.messages_already_present:
            text += f", {report.messages_already_present:,} already in the memory"
        text += "."
    if report.skipped:
        ordered = sorted(report.skipped.items(), key=lambda item: (-item[1], item[0]))
        text += " Left out: " + ", ".join(f"{n:,} × {why}" for why, n in ordered) + "."
    return text


def start_import(
    runner: TaskRunner,
    mem: Memory,
    fmt: str,
    path: Path,
    session: str | None,
    on_success: Callable[[tuple[ImportReport, float]], None],
    on_failure: Callable[[BaseException], None],
) -> Task | None:
    """Import ``path`` (in format ``fmt``) on the store worker; ``on_success((report, seconds))``."""
    reader = readers()[fmt]
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        runner.report_progress(token, done, total)
        token.check()

    def op() -> tuple[ImportReport, float]:
        started = time.perf_counter()
        result = reader(path, session)  # everything is read and checked before anything is stored
        token.check()
        report = mem.import_sessions(result.sessions, progress).with_skipped(result.skipped)
        return report, time.perf_counter() - started

    log.info("importing %s (%s)", path, fmt)
    return runner.run_query(op, on_success, on_failure, label=f"Importing {path.name or path}", token=token)


class ImportDialog(QDialog):
    """Asks what to import.

    Signals:
        import_requested(str, object, object): format, :class:`~pathlib.Path`, session id or None.
    """

    import_requested = Signal(str, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("memtray — import conversations")
        self.setMinimumWidth(560)
        self.format = QComboBox()
        self.format.setObjectName("import-format")
        for value, label in FORMATS:
            self.format.addItem(label, value)
        self.about = QLabel("")
        self.about.setWordWrap(True)
        self.path = QLineEdit()
        self.path.setObjectName("import-path")
        self.choose = QPushButton("Choose…")
        self.session = QLineEdit()
        self.session.setObjectName("import-session")
        self.session.setPlaceholderText("optional: one conversation into this session")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.import_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText("Import")
        form = QFormLayout()
        form.addRow("Format", self.format)
        form.addRow("", self.about)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.choose)
        form.addRow("File or folder", row)
        form.addRow("Session", self.session)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.format.currentIndexChanged.connect(self._on_format_changed)
        self.path.textChanged.connect(self._on_path_changed)
        self.choose.clicked.connect(self._on_choose_clicked)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)
        self._on_format_changed()
        self._on_path_changed()

    def set_format(self, fmt: str) -> None:
        self.format.setCurrentIndex(self.format.findData(fmt))

    def _on_format_changed(self) -> None:
        fmt = self.format.currentData()
        self.about.setText(f"Choose {DESCRIPTIONS.get(fmt, '')}. Importing the same file again adds nothing.")

    def _on_path_changed(self) -> None:
        self.import_button.setEnabled(bool(self.path.text().strip()))

    def _on_choose_clicked(self) -> None:
        fmt = self.format.currentData()
        if fmt == "agenvoy":
            chosen = QFileDialog.getExistingDirectory(self, "Agenvoy sessions folder")
        else:
            chosen, _ = QFileDialog.getOpenFileName(self, "File to import", "", FILTERS.get(fmt, ""))
        if chosen:
            self.path.setText(chosen)

    def _on_accepted(self) -> None:
        path = self.path.text().strip()
        if not path:
            return
        session = self.session.text().strip() or None
        self.import_requested.emit(self.format.currentData(), Path(path).expanduser(), session)
        self.accept()
