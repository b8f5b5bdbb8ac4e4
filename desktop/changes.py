"""Follow what other programs change in the memory (the CLI, the MCP server, the summary daemon).

Every :data:`POLL_MS` the store worker reads :meth:`engine.Memory.change_mark` (SQLite's ``data_version``
on a connection of its own, and the sessions folder's time: a few microseconds, against tens of
milliseconds for counting the messages of a large archive). When the mark moved, the app's state is read
again (:meth:`desktop.state.AppState.refresh`: sessions, settings, the embedding backlog), and the views
that follow the state update: the session list, the open conversation, the error memory. A ``memtray
config`` change reaches the app the same way. The GUI thread only starts the poll and compares two tuples.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer

from desktop.state import AppState

log = logging.getLogger("memtray.desktop.changes")

POLL_MS = 2000


class ChangeWatch(QObject):
    """Polls the memory's change mark on the store worker; when it moved, tells the state
    (:meth:`desktop.state.AppState.note_change`: its ``memory_did_change`` signal, then a refresh)."""

    def __init__(self, state: AppState, parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self.state = state
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self._mark: tuple[int, int] | None = None
        self._polling = False

    def start(self) -> None:
        """Start polling (again, after a repair: the new memory's first mark is the one compared with)."""
        self._mark = None
        self.timer.start()
        self.poll()

    def stop(self) -> None:
        self.timer.stop()

    def poll(self) -> None:
        """Ask the store worker for the mark (at most one poll in flight)."""
        mem = self.state.memory
        if mem is None or self._polling:
            return
        self._polling = True
        self.state.runner.run_query(mem.change_mark, self._on_mark, self._on_failed, owner=self)

    def _on_mark(self, mark: tuple[int, int]) -> None:
        self._polling = False
        before, self._mark = self._mark, mark
        if before is not None and mark != before:
            log.debug("the memory changed (%s -> %s)", before, mark)
            self.state.note_change()

    def _on_failed(self, exc: BaseException) -> None:
        self._polling = False
        log.info("could not read the memory's change mark: %s", exc)
