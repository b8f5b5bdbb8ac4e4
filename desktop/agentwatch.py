"""Watch agents' folders: new Claude Code and Codex turns imported while the app runs.

While the ``watch_agent_folders`` setting is on (off by default), :class:`AgentWatch` submits an
incremental import of the watched folders (``agent_folders``; empty means the agents' own folders that
exist) to the store worker every :data:`WATCH_MS`, and once at once when the setting is turned on:
:func:`engine.import_agent_folders` reads only what was appended to each transcript since the last run.
Nothing waits for it on the GUI thread; at most one run is in flight. When a run added messages, the
app's state is refreshed (the session lists) and :attr:`AgentWatch.did_import` lets the open
conversation show them.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.state import AppState
from engine import agent_folders, import_agent_folders

log = logging.getLogger("memtray.desktop.agentwatch")

WATCH_MS = 45_000
"""How often the watched folders are read (new turns show within a minute)."""


class AgentWatch(QObject):
    """Imports the agents' new turns on a timer while the setting is on.

    Signals:
        did_import(object): a run added messages (its :class:`engine.imported.ImportReport`).
    """

    did_import = Signal(object)

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_MS)
        self.timer.timeout.connect(self.run_now)
        self._running = False
        self._last_error = ""
        state.state_did_change.connect(self._follow_settings)
        self._follow_settings()

    @property
    def watching(self) -> bool:
        return self.timer.isActive()

    def stop(self) -> None:
        self.timer.stop()

    def run_now(self) -> None:
        """Import the watched folders' new turns on the store worker (unless a run is in flight)."""
        mem = self.state.memory
        if mem is None or self._running:
            return
        settings = self.state.snapshot.settings
        self._running = True
        self.state.runner.run_query(
            lambda: import_agent_folders(mem, agent_folders(settings)),
            self._on_done,
            self._on_failed,
            owner=self,
        )

    def _follow_settings(self) -> None:
        on = self.state.memory is not None and self.state.snapshot.settings.watch_agent_folders
        if on and not self.timer.isActive():
            log.info("watching agents' folders every %d s", WATCH_MS // 1000)
            self.timer.start()
            QTimer.singleShot(0, self, self.run_now)
        elif not on and self.timer.isActive():
            log.info("no longer watching agents' folders")
            self.timer.stop()

    def _on_done(self, report: object) -> None:
        self._running = False
        self._last_error = ""
        if getattr(report, "messages_added", 0):
            self.state.refresh()
            self.did_import.emit(report)

    def _on_failed(self, exc: BaseException) -> None:
        self._running = False
        text = f"{type(exc).__name__}: {exc}"
        if text != self._last_error:  # said once, not every run
            log.warning("importing from the agents' folders failed: %s", text)
        self._last_error = text
