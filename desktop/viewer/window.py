"""The viewer window: sessions on the left; conversation, search, summary and error memory on the right.

Its menu bar holds every command of the tray menu (:class:`desktop.actions.AppActions`, laid out as File,
Memory and Help), so the window alone is enough where there is no tray. File ▸ Import… reads another
tool's export into sessions (:mod:`desktop.viewer.importing`); its progress shows in the status bar and
its report in a message box. The status bar also shows what memtray is doing: the embedding backlog
and the re-embedding after an embedder switch (:class:`desktop.viewer.progress.EmbeddingProgress`), and
the rest of the status line (:class:`desktop.viewer.progress.StatusLine`: summaries paused, a damaged
database with its Repair… link).

The views follow the memory as other programs change it (the state is re-read when
:class:`desktop.changes.ChangeWatch` sees a change): the session list, the open conversation (reopened
where the reader was when its messages changed, after a compaction for instance), its summary and the
error memory. When Repair… takes the memory back to rebuild it, the views let go of it, and follow the
repaired one when it opens (the open conversation is read again from it). A right click on a session offers Rename… and Remove…, on a message Forget…
(:class:`desktop.viewer.editing.SessionEditor` asks first and does them on the store worker).

While the home holds no sessions, a welcome page (:class:`desktop.viewer.welcome.WelcomePanel`) replaces
the empty lists and says how to begin.

Closing it hides it (the tray keeps running), except when there is no system tray: then it is the main
window, says so in a banner, and closing it quits.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QPoint, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import contrast
from desktop.a11y import accessible
from desktop.actions import AppActions, find_action
from desktop.errors import describe
from desktop.icons import app_icon
from desktop.operations import Outcome
from desktop.placement import fit_to_screen
from desktop.state import AppState
from desktop.titles import title_of
from desktop.viewer.conversation import ConversationPane
from desktop.viewer.editing import SessionEditor
from desktop.viewer.errormemory import ErrorMemoryPanel
from desktop.viewer.importing import ImportDialog, import_words, start_import
from desktop.viewer.progress import EmbeddingProgress, StatusLine, StatusProgress
from desktop.viewer.search import SearchPane
from desktop.viewer.sessions import SessionsPanel
from desktop.viewer.summary import SummaryPanel
from desktop.viewer.welcome import WelcomePanel
from desktop.windowkeys import add_close_keys
from engine import Message, SessionInfo

log = logging.getLogger("memtray.desktop.viewer")

translate = QCoreApplication.translate

MINIMUM = QSize(640, 420)
"""The sessions list, a readable conversation and the status bar (fits 800×500)."""


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

    def __init__(
        self,
        state: AppState,
        parent: QWidget | None = None,
        *,
        actions: AppActions | None = None,
        home: Path | None = None,
    ) -> None:
        """``actions``: the app's commands for the menu bar (without them the window makes its own, whose
        Import… opens its dialog and whose other requests go nowhere); ``home``: the data folder."""
        super().__init__(parent)
        self.state = state
        self.runner = state.runner
        self.home = home
        self.is_main_window = False
        self.setWindowTitle(translate("Viewer", "memtray — sessions"))
        add_close_keys(self, escape=lambda: not self.is_main_window)
        self.setWindowIcon(app_icon())
        self.banner = QLabel("")
        self.banner.setObjectName("viewer-banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(contrast.banner_style(self.palette()))
        self.banner.hide()
        self.sessions = SessionsPanel()
        self.conversation = ConversationPane(self.runner)
        self.search = SearchPane(self.runner)
        self.search.session_info = state.session
        self.tabs = QTabWidget()
        self.tabs.setObjectName("viewer-tabs")
        accessible(self.tabs.tabBar(), translate("Viewer", "Views of the session"))
        self.tabs.addTab(self.conversation, translate("Viewer", "Conversation"))
        self.tabs.addTab(self.search, translate("Viewer", "Search"))
        self.summary: SummaryPanel | None = None
        self.errors: ErrorMemoryPanel | None = None
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sessions)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([440, 660])
        self.welcome = WelcomePanel()
        self.pages = QStackedWidget()
        self.browser = split
        self.pages.addWidget(split)
        self.pages.addWidget(self.welcome)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.banner)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        self.status_line = StatusLine(state)
        self.statusBar().addPermanentWidget(self.status_line)
        self.progress = StatusProgress(self.runner)
        self.statusBar().addPermanentWidget(self.progress)
        self.embedding = EmbeddingProgress(state)
        self.statusBar().addPermanentWidget(self.embedding)
        self.editor = SessionEditor(state, self)
        self.editor.edit_did_finish.connect(self._on_edit_did_finish)
        self.message_menu: QMenu | None = None
        self._shown: SessionInfo | None = None  # the open session as it was when its conversation loaded
        self._summary_seen = 0
        self.import_dialog: ImportDialog | None = None
        self.import_report: QMessageBox | None = None
        if actions is None:
            actions = AppActions(state, self)
            actions.import_requested.connect(self.show_import)
        self.commands = actions
        self.status_line.repair_requested.connect(actions.repair_requested)
        self.menus = actions.fill_menu_bar(self.menuBar())
        for menu in self.menus.values():
            menu.aboutToShow.connect(self._refill_menus)
        self._menus_stale = QTimer(self)  # refill after the event that changed the state, never inside it
        self._menus_stale.setSingleShot(True)
        self._menus_stale.setInterval(0)
        self._menus_stale.timeout.connect(self.rebuild_menus)
        self.welcome.import_requested.connect(actions.import_requested)
        self.welcome.chat_requested.connect(lambda: actions.chat_requested.emit(None))
        self.welcome.settings_requested.connect(actions.settings_requested)
        self.welcome.open_folder_requested.connect(self._on_open_folder_requested)
        self.welcome.set_home(home)
        fit_to_screen(self, 0.75, 0.8, MINIMUM)

        self.sessions.session_did_select.connect(self._on_session_did_select)
        self.sessions.rename_requested.connect(lambda sid: self.editor.ask_rename(sid, self))
        self.sessions.remove_requested.connect(lambda sid: self.editor.ask_remove(sid, self))
        self.conversation.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.conversation.list.customContextMenuRequested.connect(self._on_message_menu_requested)
        self.search.result_did_activate.connect(self.reveal_message)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        state.state_did_change.connect(self._on_state_did_change)
        state.memory_did_change.connect(self._on_memory_did_change)
        state.memory_did_open.connect(self._on_memory_did_open)
        state.memory_did_close.connect(self._on_memory_did_close)
        state.session_did_go.connect(self._on_session_did_go)
        state.messages_did_go.connect(self._on_messages_did_go)
        if state.memory is not None:
            self._on_memory_did_open()
        self._on_state_did_change()

    # -- public -----------------------------------------------------------------------------------

    def action(self, name: str) -> QAction:
        """The menu-bar action with object name ``name`` (the tray menu's names)."""
        return find_action(self.menuBar(), name)

    @property
    def import_action(self) -> QAction:
        return self.action("import")

    def rebuild_menus(self) -> None:
        """Refill the menu bar from the state the app holds (no I/O); not while one of its menus is open."""
        if not any(menu.isVisible() for menu in self.menus.values()):
            self._refill_menus()

    def _refill_menus(self) -> None:
        self.commands.fill_menu_bar(self.menuBar(), self.menus)

    @property
    def welcoming(self) -> bool:
        """Whether the welcome page is shown (the memory is open and holds no sessions)."""
        return self.pages.currentWidget() is self.welcome

    def become_main_window(self, reason: str) -> None:
        """No tray: this window is the app; say why, and quit when it closes."""
        self.is_main_window = True
        self.banner.setText(reason)
        self.banner.show()

    def show_message(self, text: str, ok: bool = True) -> None:
        self.statusBar().showMessage(text if ok else f"⚠ {text}", 15000)  # ⚠ needs no translation

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
        self._shown = self.state.session(session)
        self.conversation.open(mem, session, reveal=reveal, info=self._shown)
        if self.summary is not None:
            self.summary.show_session(session)
            self._summary_seen = self._shown.summary_updated if self._shown is not None else 0

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
        from engine import ImportReport

        if report is None:  # cancelled: said in the status bar, no box to dismiss
            outcome = Outcome(
                translate("Viewer", "Import of {name} cancelled").format(name=path.name),
                translate(
                    "Viewer",
                    "What was stored before the cancel stays; importing the file again adds only what is missing.",
                ),
            )
            log.info("%s: %s", outcome.title, outcome.text)
            self.state.refresh()
            self.show_message(outcome.line(), True)
            self.import_did_finish.emit(outcome)
            return
        assert isinstance(report, ImportReport)
        outcome = Outcome(
            translate("Viewer", "Imported {name}").format(name=path.name), import_words(report, seconds)
        )
        log.info("%s: %s", outcome.title, outcome.text)
        self.state.refresh()
        self._report_import(outcome)

    def _on_import_failed(self, path: Path, exc: BaseException) -> None:
        message = describe(exc, translate("Viewer", "importing {name}").format(name=path.name))
        if message.bug:
            log.error("import of %s failed", path, exc_info=exc)
        else:
            log.info("import of %s failed: %s", path, exc)
        from engine.errors import InvalidInput

        # The reader checks the whole file before anything is stored: a refused file imported nothing.
        nothing = translate("Viewer", " Nothing was imported.") if isinstance(exc, InvalidInput) else ""
        self._report_import(Outcome(message.title, message.text + nothing, ok=False))

    def _report_import(self, outcome: Outcome) -> None:
        self.show_message(outcome.line(), outcome.ok)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Information if outcome.ok else QMessageBox.Icon.Warning)
        box.setWindowTitle(translate("Viewer", "memtray: import"))
        box.setText(outcome.title)
        box.setInformativeText(outcome.text)
        box.setObjectName("import-report")
        box.finished.connect(box.deleteLater)
        self.import_report = box
        box.open()
        self.import_did_finish.emit(outcome)

    # -- slots ------------------------------------------------------------------------------------

    def _on_memory_did_open(self) -> None:
        self._menus_stale.start()
        mem = self.state.memory
        self.conversation.memory = mem
        self.search.memory = mem
        self.search.set_semantic_available(self.state.semantic)
        if self.state.summaries is not None:
            if self.summary is None:
                self.summary = SummaryPanel(self.runner, self.state.summaries)
                self.summary.summarize_requested.connect(self.summarize_requested)
                self.tabs.addTab(self.summary, translate("Viewer", "Summary"))
            else:  # a repaired memory: the panel reads the new one
                self.summary.source = self.state.summaries
        if self.state.errors is not None:
            if self.errors is None:
                self.errors = ErrorMemoryPanel(self.runner, self.state.errors)
                self.tabs.addTab(self.errors, translate("Viewer", "Error memory"))
            else:
                self.errors.source = self.state.errors
            self.errors.refresh()
        model = self.conversation.model
        if mem is not None and model.session is not None and model.memory is not mem:
            model.memory = mem  # the conversation open before a repair is read again from the new memory
            self.conversation.refresh()

    def _on_memory_did_close(self) -> None:
        """Repair… took the memory back: nothing here reads it any more (the repaired one comes next)."""
        self.conversation.memory = None
        self.conversation.model.memory = None
        self.search.memory = None

    def _on_state_did_change(self) -> None:
        sessions = self.state.snapshot.sessions
        self.sessions.set_sessions(sessions)
        empty = self.state.has_snapshot and not any(not s.temporary for s in sessions)
        self.pages.setCurrentWidget(self.welcome if empty else self.browser)
        self._menus_stale.start()
        self._follow_open_session()

    def _follow_open_session(self) -> None:
        """Reload the open conversation, and its summary, when the snapshot says they changed."""
        mem, model = self.state.memory, self.conversation.model
        session = model.session
        if mem is None or session is None or not self.state.has_snapshot:
            return
        info = self.state.session(session)
        if info is None:
            return
        self.conversation.set_info(info)  # a rename: the new title heads the conversation at once
        if self.summary is not None and info.summary_updated != self._summary_seen:
            self._summary_seen = info.summary_updated
            self.summary.show_session(session)
        if model.loading or self._shown is None or _messages_of(info) == _messages_of(self._shown):
            return
        log.info("session %s changed (%d messages now); reading it again", session, info.total_messages)
        self._shown = info
        self.conversation.refresh()  # new messages become rows; a compaction reopens it in place

    def _on_session_did_go(self, session: str) -> None:
        """Every message of ``session`` was deleted: nothing of it stays on screen."""
        self.search.searcher.drop(session)
        if self.conversation.model.session == session:
            title = title_of(self.state.session(session), session)
            self.conversation.close_session(
                translate("Viewer", "The messages of “{title}” were deleted.").format(title=title)
            )
            self._shown = None
        if self.summary is not None and self.summary.session == session:
            if self.state.session(session) is None or not self.state.memory:
                self.summary.close_session()
            else:
                self.summary.show_session(session)  # a reset keeps the summary: it is read again

    def _on_messages_did_go(self, session: str, ids: list[int]) -> None:
        """Messages of ``session`` were forgotten: they leave the search results and the conversation."""
        self.search.searcher.drop(session, ids or None)
        if self.conversation.model.session == session:
            self.conversation.reopen()
        if self.summary is not None and self.summary.session == session:
            self.summary.show_session(session)  # forgetting a message deletes the session's summary

    def _on_memory_did_change(self) -> None:
        """Another program (or this one) changed the memory: re-read what the snapshot does not hold."""
        if self.errors is not None and self.tabs.currentWidget() is self.errors:
            self.errors.refresh_listing()

    def _on_tab_changed(self, _index: int) -> None:
        if self.errors is not None and self.tabs.currentWidget() is self.errors:
            self.errors.refresh()

    def _on_edit_did_finish(self, outcome: Outcome) -> None:
        self.show_message(outcome.line(), outcome.ok)

    def _on_message_menu_requested(self, pos: QPoint) -> None:
        index = self.conversation.list.indexAt(pos)
        message = self.conversation.model.message(index.row()) if index.isValid() else None
        if message is None:
            return
        if self.message_menu is not None:
            self.message_menu.deleteLater()
        self.message_menu = self.menu_for_message(message)
        self.message_menu.popup(self.conversation.list.viewport().mapToGlobal(pos))

    def menu_for_message(self, message: Message) -> QMenu:
        """A message's context menu: Copy, Forget…."""
        menu = QMenu(self)
        menu.setObjectName("message-menu")
        copy = menu.addAction(translate("Viewer", "Copy"))
        copy.setObjectName("copy-message")
        copy.triggered.connect(self.conversation.copy_selection)
        forget = menu.addAction(translate("Viewer", "Forget this message…"))
        forget.setObjectName("forget-message")
        forget.setEnabled(message.id is not None)
        if message.id is None:
            forget.setToolTip(translate("Viewer", "Not archived yet, so there is nothing to forget"))
        forget.triggered.connect(lambda: self.editor.ask_forget(message, self))
        menu.setToolTipsVisible(True)
        return menu

    def _on_open_folder_requested(self) -> None:
        if self.home is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.home)))

    def _on_session_did_select(self, session: str) -> None:
        self.open_session(session)

    def reveal_message(self, session: str, message_id: int) -> None:
        """Show the conversation of ``session`` scrolled to message ``message_id``, selected."""
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


def _messages_of(info: SessionInfo) -> tuple[int, int, int]:
    """What a reload of the conversation follows: the counts (a compaction moves them), the last message."""
    return (info.hot_messages, info.archived_messages, info.last_message_at)
