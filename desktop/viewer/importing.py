"""File ▸ Import…: read another tool's export into sessions, on the store worker, and say what happened.

:class:`ImportDialog` (non-modal) asks for the format (every one of ``engine.importers.readers()``: ChatGPT
and Claude exports, Agenvoy, Claude Code and Codex transcripts, JSON Lines), the file or folder, and
optionally the session to import into. :func:`start_import` runs the reader and ``Memory.import_sessions``
on the store worker (a big export is parsed in a worker process: :mod:`desktop.viewer.readprocess`): the
reader checks the whole file before anything is stored; then the progress
callback (called on the worker after each conversation) is handed to the GUI thread through
:meth:`desktop.tasks.TaskRunner.report_progress`, where the status bar fills its bar. Agents' transcripts
are read incrementally (:func:`engine.import_transcripts`: what was appended since the last import). The
task is cancellable between conversations (importing again later adds only what is missing).
:func:`import_words` says what the import did.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Signal
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

from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.placement import SMALL_SCREEN
from desktop.tasks import Cancelled, CancelToken, Task, TaskRunner
from desktop.viewer.importreasons import reason_words
from desktop.viewer.readprocess import read_export
from engine import ImportReport, Memory, import_transcripts
from engine.importers import FOLDERS, INCREMENTAL

log = logging.getLogger("memtray.desktop.viewer.importing")

translate = QCoreApplication.translate

FORMATS = (
    ("chatgpt", QT_TRANSLATE_NOOP("Import", "ChatGPT data export")),
    ("claude", QT_TRANSLATE_NOOP("Import", "Claude data export")),
    ("agenvoy", QT_TRANSLATE_NOOP("Import", "Agenvoy sessions folder")),
    ("claude-code", QT_TRANSLATE_NOOP("Import", "Claude Code transcripts")),
    ("codex", QT_TRANSLATE_NOOP("Import", "Codex CLI sessions")),
    ("jsonl", QT_TRANSLATE_NOOP("Import", "JSON Lines (one message per line)")),
)
DESCRIPTIONS = {
    "agenvoy": QT_TRANSLATE_NOOP(
        "Import", "an Agenvoy sessions/ folder, or one session folder (history.json, summary.json)"
    ),
    "chatgpt": QT_TRANSLATE_NOOP(
        "Import", "conversations.json of a ChatGPT data export (the file, its folder, or the .zip)"
    ),
    "claude": QT_TRANSLATE_NOOP(
        "Import", "conversations.json of a Claude data export (the file, its folder, or the .zip)"
    ),
    "claude-code": QT_TRANSLATE_NOOP(
        "Import", "Claude Code transcripts: ~/.claude/projects, one project folder, or one .jsonl file"
    ),
    "codex": QT_TRANSLATE_NOOP(
        "Import", "Codex CLI rollouts: ~/.codex/sessions, a folder below it, or one rollout-….jsonl file"
    ),
    "jsonl": QT_TRANSLATE_NOOP("Import", "one history.json record per line, into one session"),
}
"""What to choose for each format (the engine's ``engine.importers.formats.DESCRIPTIONS``, in the UI language)."""
FILTERS = {
    "jsonl": QT_TRANSLATE_NOOP("Import", "JSON Lines (*.jsonl *.json)"),
    "chatgpt": QT_TRANSLATE_NOOP("Import", "ChatGPT export (conversations.json *.zip)"),
    "claude": QT_TRANSLATE_NOOP("Import", "Claude export (conversations.json *.zip)"),
    "claude-code": QT_TRANSLATE_NOOP("Import", "Transcripts (*.jsonl)"),
    "codex": QT_TRANSLATE_NOOP("Import", "Transcripts (*.jsonl)"),
}


def import_words(report: ImportReport, seconds: float) -> str:
    """Say what an import did, in one or two sentences."""
    took = translate("Import", "{seconds} s").format(seconds=f"{seconds:.1f}")
    if not report.sessions:
        text = translate("Import", "The file held no conversation to import ({took}).").format(took=took)
    else:
        convs = translate("Import", "%Ln conversation(s)", "", report.sessions)
        added = translate("Import", "%Ln message(s) added", "", report.messages_added)
        if report.messages_already_present:
            text = translate(
                "Import", "Read {conversations} in {took}: {added}, {present} already in the memory."
            )
        else:
            text = translate("Import", "Read {conversations} in {took}: {added}.")
        text = text.format(
            conversations=convs, took=took, added=added, present=f"{report.messages_already_present:,}"
        )
    if report.unchanged:
        text += translate(
            "Import", " %Ln transcript(s) had nothing new since the last import.", "", report.unchanged
        )
    if report.skipped:
        ordered = sorted(report.skipped.items(), key=lambda item: (-item[1], item[0]))
        reasons = translate("Import", ", ", "between the reasons of a list").join(
            translate("Import", "{count} × {why}").format(count=f"{n:,}", why=reason_words(why))
            for why, n in ordered
        )
        text += translate("Import", " Left out: {reasons}.").format(reasons=reasons)
    return text


def start_import(
    runner: TaskRunner,
    mem: Memory,
    fmt: str,
    path: Path,
    session: str | None,
    on_success: Callable[[tuple[ImportReport | None, float]], None],
    on_failure: Callable[[BaseException], None],
) -> Task | None:
    """Import ``path`` (in format ``fmt``) on the store worker; ``on_success((report, seconds))``, with
    report None when the import was cancelled (what was stored before stays)."""
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        runner.report_progress(token, done, total)
        token.check()

    def op() -> tuple[ImportReport | None, float]:
        started = time.perf_counter()
        try:
            return store(), time.perf_counter() - started
        except Cancelled:
            log.info("import of %s cancelled", path)
            return None, time.perf_counter() - started

    def store() -> ImportReport:
        if fmt in INCREMENTAL:
            report = import_transcripts(mem, fmt, path, session, progress)
        else:
            result = read_export(fmt, path, session, token)  # all read and checked before anything is stored
            token.check()
            report = mem.import_sessions(result.sessions, progress).with_read(result)
        return report

    log.info("importing %s (%s)", path, fmt)
    label = translate("Import", "Importing {name}").format(name=path.name or path)
    return runner.run_query(op, on_success, on_failure, label=label, token=token)


class ImportDialog(QDialog):
    """Asks what to import.

    Signals:
        import_requested(str, object, object): format, :class:`~pathlib.Path`, session id or None.
    """

    import_requested = Signal(str, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Import", "memtray — import conversations"))
        self.setMinimumWidth(min(560, SMALL_SCREEN.width()))
        self.format = QComboBox()
        self.format.setObjectName("import-format")
        for value, label in FORMATS:
            self.format.addItem(translate("Import", label), value)
        self.about = QLabel("")
        self.about.setWordWrap(True)
        self.path = QLineEdit()
        self.path.setObjectName("import-path")
        self.path.setAccessibleName(translate("Import", "File or folder"))  # beside its button: no buddy
        self.choose = QPushButton(translate("Import", "Choose…"))
        self.session = QLineEdit()
        self.session.setObjectName("import-session")
        self.session.setPlaceholderText(translate("Import", "optional: one conversation into this session"))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.import_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText(translate("Import", "Import"))
        form = QFormLayout()
        form.addRow(translate("Import", "Format"), self.format)
        form.addRow("", self.about)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.choose)
        form.addRow(translate("Import", "File or folder"), row)
        form.addRow(translate("Import", "Session"), self.session)
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
        what = translate("Import", DESCRIPTIONS[fmt]) if fmt in DESCRIPTIONS else ""
        self.about.setText(
            translate("Import", "Choose {what}. Importing the same file again adds nothing.").format(
                what=what
            )
        )

    def _on_path_changed(self) -> None:
        self.import_button.setEnabled(bool(self.path.text().strip()))

    def _on_choose_clicked(self) -> None:
        fmt = self.format.currentData()
        if fmt in FOLDERS:
            start = Path(FOLDERS[fmt]).expanduser()
            chosen = QFileDialog.getExistingDirectory(
                self, translate("Import", "Folder to import"), str(start if start.is_dir() else Path.home())
            )
        else:
            filters = [translate("Import", FILTERS[fmt])] if fmt in FILTERS else []
            filters.append(translate("Import", "All files (*)"))
            chosen, _ = QFileDialog.getOpenFileName(
                self, translate("Import", "File to import"), "", ";;".join(filters)
            )
        if chosen:
            self.path.setText(chosen)

    def _on_accepted(self) -> None:
        path = self.path.text().strip()
        if not path:
            return
        session = self.session.text().strip() or None
        self.import_requested.emit(self.format.currentData(), Path(path).expanduser(), session)
        self.accept()
