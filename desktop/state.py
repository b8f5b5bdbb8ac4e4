"""What the app already knows, held on the GUI thread so that menus and tooltips never do I/O.

:class:`AppState` keeps a snapshot of the engine (sessions, settings, the last summary run) that a
worker refreshes, plus the work in progress reported by the task runner. The tray menu is rebuilt from
it when it opens; nothing in here touches SQLite or files.

The snapshot also carries the semantic tier's status (the embedder in use and the embedding backlog).
While there is a backlog, or the embedder is still loading, the state is re-read every
:data:`EMBED_POLL_MS` so the status bar follows the work. A re-embedding after an embedder switch reports
``done/total`` on the engine's worker thread; :class:`AppState` turns that into a queued signal and
:attr:`AppState.reembedding` on the GUI thread. :attr:`AppState.backlog` follows either count from one
refresh to the next, for the status line's "… of …" and its time estimate (:mod:`desktop.backlog`).

When the memory could not be opened, :attr:`AppState.open_error` says why in words and
:attr:`AppState.damaged` tells a damaged database (which Repair… can rebuild) from other failures; the
daily integrity check sets the same while the memory is open. Repair… then takes the memory back from the
state (:meth:`AppState.release_memory`: the views let go of it) before it is closed, and the repaired
memory is set again as at boot.
"""

from __future__ import annotations

import dataclasses
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from desktop.backlog import Backlog
from engine import SessionInfo, Settings
from engine.errors import CorruptStore

if TYPE_CHECKING:
    from desktop.seams import ErrorSource, KeyStore, SummarySource
    from desktop.tasks import Task, TaskRunner
    from engine import Memory, SemanticStatus

log = logging.getLogger("memtray.desktop.state")

EMBED_POLL_MS = 2000
"""How often the state is re-read while messages wait to be embedded or the embedder loads."""


@dataclass(frozen=True)
class Snapshot:
    """The engine's state, read on the store worker."""

    sessions: list[SessionInfo] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    last_summary_run: int | None = None
    summarizer_note: str = ""
    embedding: SemanticStatus | None = None
    embedding_paused: bool = False


def read_snapshot(mem: Memory, summaries: SummarySource | None) -> Snapshot:
    """Read a :class:`Snapshot` (runs on the store worker; reads settings another process may have changed).

    The last summary run is the later of the last run this app made and the newest ``summary.json``.
    ``embedding`` is the semantic tier's status (None when it cannot be read).
    """
    settings = mem.reload_settings()
    sessions = mem.sessions(include_temp=True)
    newest = max((s.summary_updated for s in sessions), default=0)
    last, note = newest or None, ""
    if summaries is not None:
        try:
            state = summaries.state()
        except Exception:  # a seam that fails must not hide the sessions
            log.exception("could not read the summarizer's status")
        else:
            last = max(state.last_run or 0, newest) or None
            note = state.message
    embedding: SemanticStatus | None = None
    try:
        embedding = mem.semantic.status()
    except Exception:  # the backlog is a nicety; it must not hide the sessions
        log.exception("could not read the embedding status")
    return Snapshot(sessions, settings, last, note, embedding, mem.embedding_paused)


def _relay(state: AppState) -> Callable[[int, int], None]:
    """The re-embedding callback for the engine's worker thread: a queued signal of ``state``.

    It holds ``state`` weakly: a strong reference would make a cycle (state, memory, worker, callback)
    that the garbage collector may free on any thread, and a QObject must die on the GUI thread.
    """
    ref = weakref.ref(state)

    def progress(done: int, total: int) -> None:
        target = ref()
        if target is not None:
            target._worker_did_progress.emit(done, total)

    return progress


class AppState(QObject):
    """The app's state as the GUI sees it.

    Signals:
        state_did_change(): the snapshot, the work in progress or the memory's availability changed.
        memory_did_open(): the memory is open; ``memory`` and the seams are set.
        memory_did_close(): the memory was taken back (to be closed and repaired); ``memory`` is None, and
            views holding it must let go of it.
        memory_did_change(): something in the memory changed (seen by :class:`desktop.changes.ChangeWatch`,
            by this program or another); the snapshot is being read again.
        reembed_did_progress(int, int): a re-embedding after an embedder switch did ``done`` of ``total``
            messages (GUI thread; ``done == total`` when it is complete).
        _worker_did_progress(int, int): internal; emitted on the engine's worker thread, delivered queued.
    """

    state_did_change = Signal()
    memory_did_open = Signal()
    memory_did_close = Signal()
    memory_did_change = Signal()
    reembed_did_progress = Signal(int, int)
    _worker_did_progress = Signal(int, int)

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.memory: Memory | None = None
        self.summaries: SummarySource | None = None
        self.errors: ErrorSource | None = None
        self.keys: KeyStore | None = None
        self.semantic = False
        self.snapshot = Snapshot()
        self.has_snapshot = False  # True once a snapshot was read (before, "no sessions" means "not known")
        self.open_error: str | None = None
        self.open_failure: BaseException | None = None
        self._refreshing = False
        self.reembedding: tuple[int, int] | None = None
        self.backlog = Backlog()
        self._embed_poll = QTimer(self)
        self._embed_poll.setSingleShot(True)
        self._embed_poll.timeout.connect(self.refresh)
        runner.busy_did_change.connect(self._on_busy_did_change)
        self._worker_did_progress.connect(self._on_worker_did_progress, Qt.ConnectionType.QueuedConnection)

    # -- memory -----------------------------------------------------------------------------------

    def set_memory(
        self,
        mem: Memory,
        *,
        summaries: SummarySource | None,
        errors: ErrorSource | None,
        keys: KeyStore | None,
        semantic: bool,
    ) -> None:
        self.memory = mem
        self.open_error = self.open_failure = None
        self.summaries, self.errors, self.keys, self.semantic = summaries, errors, keys, semantic
        mem.semantic.set_progress(_relay(self))
        self.memory_did_open.emit()
        self.state_did_change.emit()

    def refresh(self) -> None:
        """Re-read the snapshot on the store worker (at most one refresh in flight)."""
        mem = self.memory
        if mem is None or self._refreshing:
            return
        self._refreshing = True
        summaries = self.summaries
        self.runner.run_query(
            lambda: read_snapshot(mem, summaries), self._on_snapshot_read, self._on_snapshot_failed
        )

    def note_change(self) -> None:
        """The memory changed: tell the views that read more than the snapshot, and re-read it."""
        self.memory_did_change.emit()
        self.refresh()

    def set_open_failure(self, exc: BaseException, text: str) -> None:
        """The memory could not be opened: ``exc``, told as ``text``."""
        self.open_failure, self.open_error = exc, text
        self.state_did_change.emit()

    def detach(self) -> None:
        """Stop listening to the engine's worker (before the memory closes)."""
        self._embed_poll.stop()
        if self.memory is not None:
            self.memory.semantic.set_progress(None)

    def release_memory(self) -> Memory | None:
        """Take the memory back from the state and its views (it is closed next, on the store worker).

        Returns the memory that was set (None if none was). The damage found stays recorded, so the
        attention state and Repair… remain until a memory is set again.
        """
        mem = self.memory
        if mem is None:
            return None
        self.detach()
        self.memory = None
        self.summaries = self.errors = self.keys = None
        self.semantic = False
        self.reembedding = None
        self.memory_did_close.emit()
        self.state_did_change.emit()
        return mem

    def _on_snapshot_read(self, snapshot: Snapshot) -> None:
        self._refreshing = False
        self.snapshot = snapshot
        self.has_snapshot = True
        embedding = snapshot.embedding
        if embedding is not None and self.reembedding is None:
            self.backlog.observe(embedding.queued, moving=not snapshot.embedding_paused)
        if (
            embedding is not None
            and not snapshot.embedding_paused
            and (embedding.queued > 0 or embedding.rebuilding > 0 or embedding.choice is None)
        ):
            self._embed_poll.start(EMBED_POLL_MS)  # follow the backlog (and the loading embedder)
        self.state_did_change.emit()

    def _on_worker_did_progress(self, done: int, total: int) -> None:
        self.reembedding = (done, total) if done < total else None
        self.backlog.follow(done, total)
        self.reembed_did_progress.emit(done, total)
        if done >= total:
            self.refresh()

    def _on_snapshot_failed(self, exc: BaseException) -> None:
        self._refreshing = False
        log.warning("could not refresh the state: %s", exc)

    def set_settings(self, settings: Settings) -> None:
        """Record settings the worker just saved."""
        self.snapshot = dataclasses.replace(self.snapshot, settings=settings)
        self.state_did_change.emit()

    def set_embedding_paused(self, paused: bool) -> None:
        """Record that the engine's embedder was just paused or resumed."""
        self.snapshot = dataclasses.replace(self.snapshot, embedding_paused=paused)
        self.state_did_change.emit()

    # -- derived ----------------------------------------------------------------------------------

    @property
    def work(self) -> list[Task]:
        return self.runner.active

    @property
    def damaged(self) -> bool:
        """The memory could not be opened because its database is damaged (Repair… rebuilds it)."""
        return isinstance(self.open_failure, CorruptStore)

    @property
    def embedding_paused(self) -> bool:
        return self.snapshot.embedding_paused

    @property
    def summaries_paused(self) -> bool:
        return not self.snapshot.settings.summaries_enabled

    def recent_sessions(self, count: int = 8) -> list[SessionInfo]:
        """The sessions with the latest messages, temporary ones left out."""
        return [s for s in self.snapshot.sessions if not s.temporary][:count]

    def session(self, session: str) -> SessionInfo | None:
        """What the snapshot knows of ``session`` (None: not in it)."""
        return next((s for s in self.snapshot.sessions if s.id == session), None)

    def _on_busy_did_change(self, _count: int) -> None:
        self.state_did_change.emit()
