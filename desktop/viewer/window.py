"""The viewer window: sessions on the left; conversation, search, summary and error memory on the right.

File ▸ Import… reads another tool's export into sessions (:mod:`desktop.viewer.importing`); its progress
shows in the status bar and its report in a message box. The status bar also shows the embedding backlog
and the re-embedding after an embedder switch (:class:`desktop.viewer.progress.EmbeddingProgress`).

Closing it hides it (the tray keeps running), except when there is no system tray: then it is the main
window, says so in a banner, and closing it quits.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QSplitter, QTabWidget, QVBoxLayout, QWidget

from desktop.errors import describe
from desktop.icons import app_icon
from desktop.operations import Outcome
from desktop.state import AppState
from desktop.viewer.conversation import ConversationPane
from desktop.viewer.errormemory import ErrorMemoryPanel
from desktop.viewer.importing import ImportDialog, import_words, start_import
from desktop.viewer.progress import EmbeddingProgress, StatusProgress
from desktop.viewer.search import SearchPane
from desktop.viewer.sessions import SessionsPanel
from desktop.viewer.summary import SummaryPanel

log = logging.getLogger("memtray.desktop.viewer")


class ViewerWindow(QMainWindow):
    """The session viewer.

    Signals:
        close_did_request_quit(): the window was closed while it is the main window (no tray).
        summarize_requested(str): the summary panel asked to summarize a session now.
        import_did_finish(object): an import ended; an :class:`~desktop.operations.Outcome` in words.
    """

    close_did_request_quit = Signal()
    summarize_requested = Signal(str)
    import_did_finish = Signal(object)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = state.runner
        self.is_main_window = False
        self.setWindowTitle("memtray — sessions")
        self.setWindowIcon(app_icon())
        self.resize(1200, 720)
        self.banner = QLabel("")
        self.banner.setObjectName("viewer-banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background:#fff4ce; color:#5c4400; padding:6px; border:1px solid #e0c060;")
        self.banner.hide()
        self.sessions = SessionsPanel()
        self.conversation = ConversationPane(self.runner)
        self.search = SearchPane(self.runner)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("viewer-tabs")
        self.tabs.addTab(self.conversation, "Conversation")
        self.tabs.addTab(self.search, "Search")
        self.summary: SummaryPanel | None = None
        self.errors: ErrorMemoryPanel | None = None
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sessions)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([440, 660])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        self.setCentralWidget(central)
        self.progress = StatusProgress(self.runner)
        self.statusBar().addPermanentWidget(self.progress)
        self.embedding = EmbeddingProgress(state)
        self.statusBar().addPermanentWidget(self.embedding)
        self.import_dialog: ImportDialog | None = None
        self.import_report: QMessageBox | None = None
        file_menu = self.menuBar().addMenu("&File")
        self.import_action = file_menu.addAction("&Import…")
        self.import_action.setObjectName("import")
        self.import_action.setEnabled(state.memory is not None)
        self.import_action.triggered.connect(lambda _checked=False: self.show_import())

        self.sessions.session_did_select.connect(self._on_session_did_select)
        self.search.result_did_activate.connect(self._on_result_did_activate)
        state.state_did_change.connect(self._on_state_did_change)
        state.memory_did_open.connect(self._on_memory_did_open)
        if state.memory is not None:
            self._on_memory_did_open()
        self._on_state_did_change()

    # -- public -----------------------------------------------------------------------------------

    def become_main_window(self, reason: str) -> None:
        """No tray: this window is the app; say why, and quit when it closes."""
        self.is_main_window = True
        self.banner.setText(reason)
        self.banner.show()

    def show_message(self, text: str, ok: bool = True) -> None:
        self.statusBar().showMessage(text if ok else f"⚠ {text}", 15000)

    def present(self, tab: str = "conversation") -> None:
        """Show, raise and focus the window on ``tab`` (``conversation`` or ``search``)."""
        self.tabs.setCurrentWidget(self.search if tab == "search" else self.conversation)
        self.show()
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.raise_()
        self.activateWindow()
        if tab == "search":
            self.search.box.setFocus()

    def open_session(self, session: str, reveal: int | None = None) -> None:
        mem = self.state.memory
        if mem is None:
            return
        if self.sessions.current_session() != session:
            self.sessions.blockSignals(True)
            self.sessions.select(session)
            self.sessions.blockSignals(False)
        self.search.current_session = session
        self.conversation.open(mem, session, reveal=reveal)
        if self.summary is not None:
            self.summary.show_session(session)

    def show_import(self) -> ImportDialog:
        """Open the (non-modal) import dialog."""
        if self.import_dialog is None:
            self.import_dialog = ImportDialog(self)
            self.import_dialog.import_requested.connect(self.run_import)
        self.import_dialog.show()
        self.import_dialog.raise_()
        return self.import_dialog

    def run_import(self, fmt: str, path: Path, session: str | None) -> None:
        """Import on the store worker; the status bar shows the progress, a message box the report."""
        mem = self.state.memory
        if mem is None:
            return
        start_import(
            self.runner,
            mem,
            fmt,
            path,
            session,
            lambda res: self._on_import_done(path, *res),
            lambda exc: self._on_import_failed(path, exc),
        )

    def _on_import_done(self, path: Path, report: object, seconds: float) -> None:
        from engine.importers import ImportReport

        assert isinstance(report, ImportReport)
        outcome = Outcome(f"Imported {path.name}", import_words(report, seconds))
        log.info("%s: %s", outcome.title, outcome.text)
        self.state.refresh()
        self._report_import(outcome)

    def _on_import_failed(self, path: Path, exc: BaseException) -> None:
        message = describe(exc, f"importing {path.name}")
        if message.bug:
            log.error("import of %s failed", path, exc_info=exc)
        else:
            log.info("import of %s failed: %s", path, exc)
        from engine.errors import InvalidInput

        # The reader checks the whole file before anything is stored: a refused file imported nothing.
        nothing = " Nothing was imported." if isinstance(exc, InvalidInput) else ""
        self._report_import(Outcome(message.title, message.text + nothing, ok=False))

    def _report_import(self, outcome: Outcome) -> None:
        self.show_message(f"{outcome.title}: {outcome.text}", outcome.ok)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Information if outcome.ok else QMessageBox.Icon.Warning)
        box.setWindowTitle("memtray: import")
        box.setText(outcome.title)
        box.setInformativeText(outcome.text)
        box.setObjectName("import-report")
        box.finished.connect(box.deleteLater)
        self.import_report = box
        box.open()
        self.import_did_finish.emit(outcome)

    # -- slots ------------------------------------------------------------------------------------

    def _on_memory_did_open(self) -> None:
        self.import_action.setEnabled(True)
        self.conversation.memory = self.state.memory
        self.search.memory = self.state.memory
        self.search.set_semantic_available(self.state.semantic)
        if self.state.summaries is not None and self.summary is None:
            self.summary = SummaryPanel(self.runner, self.state.summaries)
            self.summary.summarize_requested.connect(self.summarize_requested)
            self.tabs.addTab(self.summary, "Summary")
        if self.state.errors is not None and self.errors is None:
            self.errors = ErrorMemoryPanel(self.runner, self.state.errors)
            self.tabs.addTab(self.errors, "Error memory")
            self.errors.refresh()

    def _on_state_did_change(self) -> None:
        self.sessions.set_sessions(self.state.snapshot.sessions)

    def _on_session_did_select(self, session: str) -> None:
        self.open_session(session)

    def _on_result_did_activate(self, session: str, message_id: int) -> None:
        self.tabs.setCurrentWidget(self.conversation)
        if self.conversation.model.session == session and not self.conversation.model.loading:
            self.conversation.reveal(message_id)
        else:
            self.open_session(session, reveal=message_id)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.is_main_window:
            event.accept()
            self.close_did_request_quit.emit()
            return
        event.ignore()
        self.hide()
