"""The desktop app's composition root.

Boot order (one log line per subsystem, all under ``memtray.desktop``):

1. ``logging``: the home folder is resolved (``--home``, ``MEMTRAY_HOME`` or the platform's) and the
   rotating log opened; the UI language is chosen (``MEMTRAY_LANG``, else the ``ui_language`` setting,
   peeked at read-only before the memory opens) and its translations installed (:mod:`desktop.i18n`);
   Qt's messages are routed into the log (:mod:`desktop.qtlog`) and the excepthook that logs and shows
   unhandled exceptions is installed (:mod:`desktop.crash`).
2. ``single instance``: ``<home>/.store/app.lock`` is taken; if another memtray holds it, this launch
   asks it to show its window and exits (:mod:`desktop.single`). ``memtray --quit`` skips the boot
   altogether: it asks the running memtray of that home to quit and exits.
3. ``tasks``: the store worker and the network pool start (:mod:`desktop.tasks`).
4. ``memory``: :meth:`engine.Memory.open` runs on the store worker (it may migrate the database); the
   memory's key store (``mem.keys``) is the one the summarizer, the chat windows and the settings window
   share (so a key "for this session only" reaches them all); the summaries, error memory and key store
   are adapted through :mod:`desktop.seams`, and the first snapshot is read. A damaged database is not
   opened: the tray shows the attention state and offers Repair… (:mod:`desktop.repair`), which rebuilds
   it on the store worker and then opens the memory. When the daily integrity check finds the damage
   while the memory is open, Repair… first lets go of it (:meth:`Memtray.release_memory`: the timers and
   the scheduler stop, the state's views detach, the memory is closed on the store worker); the repaired
   memory then replaces it in everything the first open set up (one scheduler, one set of timers, and
   shutdown hooks that close whichever memory is open at quit).
5. ``tray``: the icon and its menu, or, without a system tray, the viewer as the main window with a
   banner saying why and every tray command in its menu bar (:mod:`desktop.tray`,
   :mod:`desktop.viewer.window`; both show :class:`desktop.actions.AppActions`, whose requests are
   connected here once). Windows get their saved place back (:mod:`desktop.placement`,
   ``<home>/ui-state.json``, read before the event loop starts). The tray's "New chat" and
   "Continue ▸" open chat windows (:mod:`desktop.chat.window`), one per session; Compact… and Reset…
   open the session chooser (:mod:`desktop.chooser`). "Search memory…", the global shortcut
   (:mod:`desktop.hotkeys`, Ctrl+Alt+M where the platform allows one; keys another app holds are
   reported) and ``memtray --search`` open the quick search (:mod:`desktop.quicksearch`).
6. ``timers``: the change watch (every 2 s, :mod:`desktop.changes`: what other programs change shows
   within seconds, settings included), the full state refresh (every 60 s) and the scheduler's tick
   (every 30 s) start once the memory is open. The tick runs on the GUI thread but only submits work (:mod:`desktop.scheduling`):
   summaries every quarter hour on the network pool, the error purge and temp cleanup on the store worker.
   With ``watch_agent_folders`` on, the agents' new transcript turns are imported every 45 s on the store
   worker (:mod:`desktop.agentwatch`).

Shutdown runs in reverse, from one signal: :attr:`Memtray.shutting_down`; the tray's Quit, SIGINT/SIGTERM
and ``memtray --quit`` all lead there, and the process exits with status 0 within a few seconds, whatever
windows were shown. The icon and every window hide first; then each subsystem's hook runs, connected when
it started (the workers are waited for at most ``SHUTDOWN_WAIT_S``, timers stop, the memory closes). The
single-instance lock is released last, as the process ends (:meth:`Memtray.end_process`); an operation
still running on a worker then (a Gemini call waiting on the network, an import's batch) is not waited
for: the process ends at once, and SQLite rolls back what was not committed. The tray's Quit and the main window's File ▸ Quit are the same command; closing the
main window (no tray) quits too, and the windows' places are written last, after the workers stopped.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from desktop import crash, i18n, qtlog, refguard, seams
from desktop.about import AboutDialog
from desktop.actions import AppActions
from desktop.agentwatch import AgentWatch
from desktop.changes import ChangeWatch
from desktop.chat.window import ChatWindow
from desktop.chooser import SessionChooser
from desktop.command import parse_args, request_quit
from desktop.errors import describe
from desktop.gcguard import MainThreadCollector
from desktop.hotkeys import DEFAULT as DEFAULT_KEYS
from desktop.hotkeys import GlobalShortcut, ShortcutStatus
from desktop.icons import app_icon
from desktop.operations import Operations, Outcome
from desktop.placement import UI_STATE_FILE, Placement, UiState
from desktop.quicksearch import QuickSearchWindow
from desktop.repair import RepairFlow
from desktop.scheduling import make_scheduler
from desktop.settings_window import SettingsWindow
from desktop.single import ACTIVATE, SEARCH, SingleInstance
from desktop.state import AppState
from desktop.tasks import NETWORK_WORKERS, TaskRunner
from desktop.tray import Tray
from desktop.viewer.window import ViewerWindow
from engine import Memory, Paths, configure_logging
from engine.chat import new_session_id
from engine.summary import SummaryScheduler

log = logging.getLogger("memtray.desktop.app")

REFRESH_MS = 60_000
CLOSE_WAIT_S = 1.0
"""How long quitting waits for the memory to close (its embedder finishing a batch)."""
THREAD_WAIT_S = 0.5
"""How long the end of the process waits for threads other than the task runner's (after its own wait)."""
TICK_MS = 30_000
translate = QCoreApplication.translate


def no_tray_text() -> str:
    """The main window's banner when the desktop has no system tray."""
    return translate(
        "App",
        "This desktop has no system tray, so memtray runs as this window: its menus hold everything the "
        "tray menu would. Closing it quits memtray; scheduled summaries run while it is open.",
    )


class Memtray(QObject):
    """The running app: owns the subsystems and wires them together.

    Signals:
        shutting_down(): the app is about to quit; every subsystem's shutdown hook is connected here.
        memory_did_open(): the memory is open and the first snapshot was requested.
        memory_did_fail(object): the memory could not be opened (the exception).
    """

    shutting_down = Signal()
    memory_did_open = Signal()
    memory_did_fail = Signal(object)

    def __init__(
        self,
        app: QApplication,
        paths: Paths,
        *,
        tray_available: bool | None = None,
        open_memory: Callable[[Path], Memory] = Memory.open,
    ) -> None:
        super().__init__()
        self.app = app
        self.paths = paths
        self.open_memory = open_memory
        self.tray_available = (
            QSystemTrayIcon.isSystemTrayAvailable() if tray_available is None else tray_available
        )
        self.runner = TaskRunner(self)
        self.state = AppState(self.runner, self)
        self.operations = Operations(self.state, self)
        self.actions = AppActions(self.state, self)
        self.ui_state = UiState.load(paths.home / UI_STATE_FILE)
        self.placement = Placement(self.ui_state, self.runner, self)
        self.tray: Tray | None = None
        self.viewer: ViewerWindow | None = None
        self.settings_window: SettingsWindow | None = None
        self.about_dialog: AboutDialog | None = None
        self.chooser: SessionChooser | None = None
        self.changes = ChangeWatch(self.state, self)
        self.repair = RepairFlow(
            self.runner, paths.home, self._on_memory_opened, open_memory, self, release=self.release_memory
        )
        self.quick_search: QuickSearchWindow | None = None
        self.shortcut = GlobalShortcut(self)
        self._shortcut_notation: str | None = None  # the keys asked for (None: none registered yet)
        self.agent_watch = AgentWatch(self.state, self)
        self.chat_windows: dict[str, ChatWindow] = {}
        self.single: SingleInstance | None = None
        self.refresh_timer = QTimer(self)
        self.tick_timer = QTimer(self)
        self.scheduler: SummaryScheduler | None = None
        self._released: Memory | None = None  # let go of for a repair; closed by it, or at quit
        self._memory_hooked = False
        self._stopped = False
        self.owns_event_loop = False  # set by run(), which runs the event loop
        self._close_unfinished = False

    # -- boot -------------------------------------------------------------------------------------

    def acquire_single_instance(self, message: bytes = ACTIVATE) -> bool:
        """Step 2. False if another memtray runs for this home (it was sent ``message``: show yourself,
        or open the quick search)."""
        self.single = SingleInstance(self.paths.home, self.paths.store_dir / "app.lock", self)
        if not self.single.acquire():
            self.single.notify_running(message=message)
            return False
        self.single.activation_requested.connect(self._on_activation_requested)
        self.single.search_requested.connect(self.show_quick_search)
        self.single.quit_requested.connect(self.quit)
        return True  # the lock is released by end_process, as the process ends

    def start(self) -> None:
        """Steps 3–6: workers, memory (in the background), tray or main window, timers."""
        log.info("tasks: a store worker and a network pool of %d ready", NETWORK_WORKERS)
        self.shutting_down.connect(self.runner.shutdown)
        self.operations.operation_did_finish.connect(self._on_operation_did_finish)
        self.operations.memory_did_change.connect(self.state.refresh)
        home = self.paths.home
        self.runner.run_query(lambda: self.open_memory(home), self._on_memory_opened, self._on_memory_failed)
        self._connect_actions()
        if self.tray_available:
            self.tray = Tray(self.state, self, actions=self.actions)
            self.tray.show()
            self.shutting_down.connect(self.tray.hide)
            log.info("tray: icon shown")
        else:
            log.warning("tray: no system tray on this desktop; the viewer is the main window")
            viewer = self.show_viewer("conversation")
            viewer.become_main_window(no_tray_text())
        self._register_shortcut(Memory.peek_settings(self.paths.home).search_shortcut)  # read-only, at boot
        if self.tray is not None and not self.ui_state.data.get("welcomed"):
            self._welcome_to_the_tray()
        self.refresh_timer.setInterval(REFRESH_MS)
        self.refresh_timer.timeout.connect(self.state.refresh)
        self.tick_timer.setInterval(TICK_MS)
        self.tick_timer.timeout.connect(self._on_tick_timeout)
        self.shutting_down.connect(self.refresh_timer.stop)
        self.shutting_down.connect(self.tick_timer.stop)
        self.shutting_down.connect(self.agent_watch.stop)

    def _welcome_to_the_tray(self) -> None:
        """The first start with a tray: a notification says where memtray went (only an icon appears)."""
        assert self.tray is not None
        keys = self.actions.quick_search_keys
        text = translate(
            "App",
            "memtray runs in the system tray: click its icon for your sessions, search, chat and settings.",
        )
        if keys:
            text += " " + translate("App", "{keys} searches your memory from anywhere.").format(keys=keys)
        self.tray.show_message(translate("App", "memtray is running"), text)
        log.info("tray: first start, told where memtray is")
        self.ui_state.data["welcomed"] = True  # written with the window places at quit

    def _connect_actions(self) -> None:
        """The commands of the tray menu and the main window's menu bar (one list: desktop.actions)."""
        actions = self.actions
        actions.open_sessions_requested.connect(lambda: self.show_viewer("conversation"))
        actions.search_requested.connect(lambda: self.show_viewer("search"))
        actions.quick_search_requested.connect(self.show_quick_search)
        actions.import_requested.connect(lambda: self.show_viewer().show_import())
        actions.chat_requested.connect(self.show_chat)
        actions.summarize_requested.connect(self.operations.summarize_now)
        actions.compact_requested.connect(self.operations.compact)
        actions.reset_requested.connect(self._on_reset_requested)
        actions.choose_requested.connect(self.show_chooser)
        actions.pause_requested.connect(self.operations.set_summaries_paused)
        actions.embedding_pause_requested.connect(self.operations.set_embedding_paused)
        actions.repair_requested.connect(lambda: self.repair.ask(self._dialog_parent()))
        self.repair.repair_did_finish.connect(self._report)
        actions.settings_requested.connect(self.show_settings)
        actions.about_requested.connect(self.show_about)
        actions.quit_requested.connect(self.quit)
        # after the workers stopped (connected first, in start): nothing else writes the file then
        self.shutting_down.connect(self.placement.save_now)

    def _on_memory_opened(self, mem: Memory) -> None:
        if self._stopped:
            mem.close()
            return
        summaries, errors, keys = seams.summaries_of(mem), seams.errors_of(mem), seams.key_store(mem.keys)
        log.info("memory: open at %s", mem.paths.home)
        self.state.set_memory(mem, summaries=summaries, errors=errors, keys=keys, semantic=True)
        if not self._memory_hooked:  # once: a repaired memory replaces the first, the hooks stay
            self._memory_hooked = True
            self.shutting_down.connect(self.state.detach)  # before the memory closes
            self.shutting_down.connect(self._close_memory)
            self.shutting_down.connect(self.changes.stop)
        self.state.refresh()
        self.state.warm_up_meaning()  # the quick search matches keywords until the model is loaded
        self.refresh_timer.start()
        self.changes.start()
        self.scheduler = make_scheduler(mem, summaries, self.state, self._on_scheduled_run_done)
        self.tick_timer.start()
        log.info(
            "timers: state refresh every %d s, scheduler tick every %d s (next summary run %s)",
            REFRESH_MS // 1000,
            TICK_MS // 1000,
            f"{self.scheduler.next_run():%H:%M}",
        )
        self.memory_did_open.emit()

    def release_memory(self) -> Memory | None:
        """Let go of the open memory so that Repair… can close it: the scheduler, the refresh timer, the
        change watch and the agents' folder watch stop, and the state's views detach from it.

        Returns the memory to close (on the store worker), or None when none is open. Runs on the GUI
        thread and does no I/O.
        """
        self.tick_timer.stop()
        self.refresh_timer.stop()
        self.changes.stop()
        self.agent_watch.stop()
        self.scheduler = None
        mem = self.state.release_memory()
        if mem is not None:
            self._released = mem
            log.info("memory: let go of %s for the repair", mem.paths.home)
        return mem

    def _close_memory(self) -> None:
        """At quit (the workers have stopped): close the memory open now, and one let go of for a repair
        that never ran. Not when an operation still runs on a worker after the wait: it may be inside the
        memory, and the process ends without closing it (SQLite rolls back what was not committed). The
        close itself (it joins the background embedder, which finishes its batch or its model load
        first) is waited for at most ``CLOSE_WAIT_S``; the process then ends without it."""
        if not self.runner.stopped_cleanly:
            log.warning("memory: left open, an operation still runs on a worker")
            return
        memories = [m for m in (self.state.memory, self._released) if m is not None and not m.closed]
        self._released = None
        if not memories:
            return

        def close_all() -> None:
            for mem in memories:
                mem.close()

        closer = threading.Thread(target=close_all, name="memtray-close", daemon=True)
        closer.start()
        closer.join(CLOSE_WAIT_S)
        if closer.is_alive():
            log.warning(
                "memory: still closing after %.1f s (the embedder's batch); not waiting", CLOSE_WAIT_S
            )
            self._close_unfinished = True

    def _on_memory_failed(self, exc: BaseException) -> None:
        message = describe(exc, translate("App", "opening the memory"))
        log.error("memory: cannot open %s: %s", self.paths.home, exc, exc_info=exc if message.bug else None)
        self.state.set_open_failure(exc, message.text)
        self._report(Outcome(message.title, message.text, ok=False))
        self.memory_did_fail.emit(exc)

    # -- windows ----------------------------------------------------------------------------------

    def show_viewer(self, tab: str = "conversation") -> ViewerWindow:
        if self.viewer is None:
            self.viewer = ViewerWindow(self.state, actions=self.actions, home=self.paths.home)
            self.viewer.summarize_requested.connect(self.operations.summarize_now)
            self.viewer.close_did_request_quit.connect(self.quit)
            self.placement.manage(self.viewer, "viewer")
        self.viewer.present(tab)
        return self.viewer

    def show_quick_search(self) -> QuickSearchWindow:
        """The quick search window ("Search memory…", the global shortcut, ``memtray --search``)."""
        if self.quick_search is None:
            self.quick_search = QuickSearchWindow(self.state)
            self.quick_search.set_shortcut_status(self.shortcut.status)
            self.quick_search.result_did_activate.connect(self._on_quick_result)
            self.placement.manage(self.quick_search, "quick-search")
        self.quick_search.present()
        return self.quick_search

    def _on_quick_result(self, session: str, message_id: int) -> None:
        self.show_viewer("conversation").reveal_message(session, message_id)

    def _register_shortcut(self, notation: str = DEFAULT_KEYS) -> None:
        """The global shortcut of the quick search (``notation``: the ``search_shortcut`` setting; empty
        for none); keys another app holds are reported, not ignored. Called again when the setting
        changes (Settings…), so a shortcut that is taken can be replaced without a restart."""
        first = self._shortcut_notation is None
        self._shortcut_notation = notation
        if notation:
            status = self.shortcut.register(notation)
        else:
            self.shortcut.unregister()
            status = self.shortcut.status = ShortcutStatus("unavailable", "")
        if first:
            self.shortcut.activated.connect(self.show_quick_search)
            self.shutting_down.connect(self.shortcut.unregister)
            self.state.state_did_change.connect(self._follow_shortcut_setting)
        for window in (self.quick_search, self.settings_window):
            if window is not None:
                window.set_shortcut_status(status)
        self.actions.quick_search_keys = status.keys if status.active else ""
        if status.state in ("taken", "failed"):
            self._report(Outcome(translate("App", "memtray: global shortcut"), status.text, ok=False))

    def _follow_shortcut_setting(self) -> None:
        """The ``search_shortcut`` setting changed (or was read at start): hold those keys instead."""
        if not self.state.has_snapshot or self._stopped:
            return
        wanted = self.state.snapshot.settings.search_shortcut
        if wanted != self._shortcut_notation:
            log.info("global shortcut: the setting says %r", wanted)
            self._register_shortcut(wanted)

    def show_chat(self, session: str | None = None) -> ChatWindow | None:
        """The chat window of ``session`` (None: a new conversation); None before the memory is open."""
        mem = self.state.memory
        if mem is None:
            return None
        is_new = session is None
        sid = session if session is not None else new_session_id(mem.clock())
        window = self.chat_windows.get(sid)
        if window is None:
            window = ChatWindow(self.state, sid, is_new=is_new)
            window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.turn_did_finish.connect(self.state.refresh)
            window.destroyed.connect(lambda _obj=None, sid=sid: self.chat_windows.pop(sid, None))
            self.shutting_down.connect(window.close)
            self.placement.manage(window, "chat")
            self.chat_windows[sid] = window
        window.present()
        return window

    def show_settings(self) -> SettingsWindow:
        if self.settings_window is None:
            self.settings_window = SettingsWindow(self.state)
            self.settings_window.set_shortcut_status(self.shortcut.status)
            self.placement.manage(self.settings_window, "settings")
        else:
            self.settings_window.load()
        self.settings_window.show()
        self.settings_window.raise_()
        self.settings_window.activateWindow()
        return self.settings_window

    def show_about(self) -> AboutDialog:
        if self.about_dialog is None:
            self.about_dialog = AboutDialog(self.runner, self.paths)
        self.about_dialog.show()
        self.about_dialog.raise_()
        self.about_dialog.activateWindow()
        return self.about_dialog

    def show_chooser(self, mode: str) -> SessionChooser:
        """The chooser of every session for Compact… (``compact``) or Reset… (``reset``)."""
        if self.chooser is None:
            self.chooser = SessionChooser(self.state, mode)
            self.chooser.session_did_choose.connect(self._on_session_did_choose)
            self.chooser.all_did_choose.connect(lambda _mode: self.operations.compact(None))
            self.shutting_down.connect(self.chooser.deleteLater)
        self.chooser.open_for(mode)  # fresh each time: no filter or selection left from the last visit
        self.chooser.show()
        self.chooser.raise_()
        self.chooser.activateWindow()
        return self.chooser

    def _on_session_did_choose(self, mode: str, session: str) -> None:
        if mode == "compact":
            self.operations.compact(session)
        else:
            self._on_reset_requested(session)

    def _dialog_parent(self) -> ViewerWindow | None:
        return self.viewer if self.viewer and self.viewer.isVisible() else None

    def _on_reset_requested(self, session: str) -> None:
        self.operations.ask_reset(session, self._dialog_parent())

    def _on_activation_requested(self) -> None:
        self.show_viewer("conversation")

    def _on_operation_did_finish(self, outcome: Outcome) -> None:
        self._report(outcome)  # the viewer reloads a summary that changed when the state is read again

    def _report(self, outcome: Outcome) -> None:
        if self.tray is not None:
            self.tray.show_message(outcome.title, outcome.text, outcome.ok)
        if self.viewer is not None:
            self.viewer.show_message(outcome.line(), outcome.ok)

    # -- scheduler --------------------------------------------------------------------------------

    def _on_tick_timeout(self) -> None:
        """Run the due jobs: each only submits work to a pool, so the GUI thread does not wait."""
        if self.scheduler is not None and not self._stopped:
            self.scheduler.tick()

    def _on_scheduled_run_done(self) -> None:
        if not self._stopped:
            self.state.refresh()

    # -- shutdown ---------------------------------------------------------------------------------

    def stop(self) -> None:
        """Run every shutdown hook once (connected to ``shutting_down``)."""
        if self._stopped:
            return
        self._stopped = True
        log.info("shutting down")
        if self.tray is not None:
            self.tray.hide()
        for window in QApplication.topLevelWidgets():  # first, so that no window lingers on screen
            if window.isVisible() and window.isWindow():
                window.hide()
        self.shutting_down.emit()

    def quit(self) -> None:
        """Quit whatever windows are shown: :meth:`stop` hides them all first, and the event loop that
        :func:`run` started is left with ``exit``, not ``quit`` (Qt's ``quit`` asks every window to close
        and gives up at the first that refuses: the viewer and the quick search hide instead). Apps
        built by tests, whose event loops are their own, get ``quit``: an ``exit`` outside ``exec``
        would end every event loop the test starts afterwards."""
        self.stop()
        if self.owns_event_loop:
            self.app.exit(0)
        else:
            self.app.quit()

    def end_process(self, status: int) -> int:
        """After the event loop returned and :meth:`stop` ran: wait (a bounded time) for the threads still
        running, release the single-instance lock, and return ``status``. When an operation or a thread
        still runs then, the lock is released and the process ends here at once (``os._exit``): Python
        would otherwise wait for it at exit, an invisible process without a lock."""
        deadline = time.monotonic() + THREAD_WAIT_S
        stuck = [] if self.runner.stopped_cleanly else ["a task runner worker"]
        if self._close_unfinished:
            stuck.append("the memory's close")
        for thread in threading.enumerate():
            if thread is threading.main_thread() or thread.daemon or stuck:
                continue
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                stuck.append(thread.name)
        if self.single is not None:
            self.single.release()
        if not stuck:
            log.info("exiting with status %d", status)
            return status
        log.warning("exiting with status %d without waiting for %s", status, ", ".join(stuck))
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _quit_on_signals(memtray: Memtray) -> None:
    """Quit cleanly on SIGINT/SIGTERM; a light timer lets Python see signals while Qt's loop runs."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: QTimer.singleShot(0, memtray.quit))
    wake = QTimer(memtray)
    wake.timeout.connect(lambda: None)
    wake.start(500)
    memtray.shutting_down.connect(wake.stop)


def run(argv: list[str]) -> int:
    """Start the tray app (or, with ``--quit``, stop the running one); return the exit status."""
    refguard.install()
    args = parse_args(argv)
    paths = Paths.resolve(args.home)
    configure_logging(paths.logs_dir, console_level=logging.INFO if args.verbose else logging.WARNING)
    if args.quit:
        return request_quit(paths)  # the launcher sends ``--quit`` to desktop.command directly
    app = QApplication(sys.argv[:1])
    app.setApplicationName("memtray")
    app.setOrganizationName("memtray")
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(app_icon())
    i18n.install(app, i18n.configured_language(Memory.peek_settings(paths.home).ui_language))
    collector = MainThreadCollector(app)  # cycles holding Qt objects are freed on the GUI thread only
    collector.start()
    qtlog.install()
    crash.install()
    log.info(
        "logging: %s (PySide6 %s, platform %s)",
        paths.log_file,
        PySide6.__version__,
        app.platformName(),
    )
    memtray = Memtray(app, paths)
    if not memtray.acquire_single_instance(SEARCH if args.search else ACTIVATE):
        log.info("single instance: memtray already runs for %s; asked it to show itself", paths.home)
        shown = "its quick search" if args.search else "its window"  # the command line: English
        sys.stdout.write(f"memtray is already running for {paths.home}: {shown} was brought to the front.\n")
        return 0
    memtray.start()
    if args.search:
        memtray.show_quick_search()
    app.aboutToQuit.connect(memtray.stop)
    _quit_on_signals(memtray)
    memtray.owns_event_loop = True
    status = int(app.exec())
    memtray.stop()
    return memtray.end_process(status)
