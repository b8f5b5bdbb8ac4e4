"""What the app already knows, held on the GUI thread so that menus and tooltips never do I/O.

:class:`AppState` keeps a snapshot of the engine (sessions, settings, the last summary run) that a
worker refreshes, plus the work in progress reported by the task runner. The tray menu is rebuilt from
it when it opens; nothing in here touches SQLite or files.

The snapshot also carries the sync's status (``Memory.sync.status()``: the tray's "Synced 2 min ago") and
the semantic tier's status (the embedder in use and the embedding backlog).
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
from engine.errors import CorruptStore, MemoryClosed

if TYPE_CHECKING:
    from desktop.seams import ErrorSource, KeyStore, SummarySource
    from desktop.tasks import Task, TaskRunner
    from engine import Memory, SemanticStatus
    from engine.sync import SyncStatus

log = logging.getLogger("memtray.desktop.state")

WARM_UP_QUERY = "memtray"
"""What the warm-up embeds and searches for (any text does)."""
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
    sync: SyncStatus | None = None
    """Where sync through a shared folder stands (None when it could not be read)."""


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
    except MemoryClosed:  # the app is quitting (or a repair took the memory's place): no snapshot at all
        raise
    except Exception:  # the backlog is a nicety; it must not hide the sessions
        log.exception("could not read the embedding status")
    sync: SyncStatus | None = None
    try:
        sync = mem.sync.status()
    except MemoryClosed:
        raise
    except Exception:  # the sync's status is a nicety too
        log.exception("could not read the sync status")
    return Snapshot(sessions, settings, last, note, embedding, mem.embedding_paused, sync)


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
        session_did_go(str): every message of this session was deleted (a reset or a removal, by this
            program or another): views showing its text clear it.
        messages_did_go(str, object): messages of this session were forgotten: a list of their ids
            (empty when another program deleted some and which is not known): views drop them.
        meaning_did_become_ready(): the embedder's model is loaded and has embedded a query, so a search
            by meaning answers without waiting for it (:attr:`AppState.meaning_ready`).
        reembed_did_progress(int, int): a re-embedding after an embedder switch did ``done`` of ``total``
            messages (GUI thread; ``done == total`` when it is complete).
        _worker_did_progress(int, int): internal; emitted on the engine's worker thread, delivered queued.
    """

    state_did_change = Signal()
    memory_did_open = Signal()
    memory_did_close = Signal()
    memory_did_change = Signal()
    meaning_did_become_ready = Signal()
    session_did_go = Signal(str)
    messages_did_go = Signal(str, object)
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
        self.meaning_ready = False
        self._summaries_warm = False  # the summarizer's first status opens the OS keyring (~0.5 s)
        self._refresh_again = False
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
        self.meaning_ready = False
        mem.semantic.set_progress(_relay(self))
        self._warm_up_summaries()
        self.memory_did_open.emit()
        self.state_did_change.emit()

    def _warm_up_summaries(self) -> None:
        """Read the summarizer's status once on the network pool: its first read opens the OS keyring,
        which takes about half a second that the store worker (and the first search queued behind the
        first snapshot) would otherwise wait. Until then the snapshots leave the summarizer's status out."""
        summaries = self.summaries
        self._summaries_warm = summaries is None
        if summaries is None:
            return

        def warm(_state: object) -> None:
            if summaries is self.summaries:
                self._summaries_warm = True
                self.refresh()

        def failed(exc: BaseException) -> None:
            log.info("the summarizer's status could not be read: %s", exc)
            warm(None)

        self.runner.run_query(summaries.state, warm, failed, pool="network")

    def warm_up_meaning(self) -> None:
        """Load the embedder's model in the background and embed one query with it (network pool), then
        search once by meaning (store worker: the in-memory index of every vector is built), so that the
        first search by meaning does not wait for either; :attr:`meaning_ready` then turns True. Until then
        the quick search matches keywords only."""
        mem = self.memory
        if mem is None or not self.semantic:
            return

        def load() -> bool:
            embedder = mem.semantic.loaded_embedder()
            if embedder is None:
                return False
            embedder.encode_query(WARM_UP_QUERY)
            return True

        def loaded(ok: bool) -> None:
            if ok and mem is self.memory:
                self.runner.run_query(
                    lambda: mem.search(WARM_UP_QUERY, match="hybrid", limit=1), lambda _hits: ready(), failed
                )

        def ready() -> None:
            if mem is self.memory:
                log.info("search by meaning: the model is loaded and warm")
                self.meaning_ready = True
                self.meaning_did_become_ready.emit()

        def failed(exc: BaseException) -> None:
            log.info("search by meaning is not warmed up: %s", exc)

        self.runner.run_query(load, loaded, failed, pool="network")

    def refresh(self) -> None:
        """Re-read the snapshot on the store worker (at most one refresh in flight)."""
        mem = self.memory
        if mem is None:
            return
        if self._refreshing:
            self._refresh_again = True  # what changed meanwhile is read by one more refresh
            return
        self._refreshing, self._refresh_again = True, False
        summaries = self.summaries if self._summaries_warm else None
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
        self.semantic = self.meaning_ready = False
        self.reembedding = None
        self.memory_did_close.emit()
        self.state_did_change.emit()
        return mem

    def tell_session_gone(self, session: str) -> None:
        """Every message of ``session`` was just deleted (a reset or removal this program did)."""
        log.info("session %s: its messages were deleted; the views let go of them", session)
        self.session_did_go.emit(session)

    def tell_message_gone(self, session: str, message_id: int) -> None:
        """Message ``message_id`` of ``session`` was just forgotten (by this program)."""
        self.messages_did_go.emit(session, [message_id])

    def _tell_what_went(self, old: list[SessionInfo], new: list[SessionInfo]) -> None:
        """What another program deleted, told by two snapshots: a session gone or emptied, or fewer
        messages (compaction moves messages, it deletes none)."""
        now = {s.id: s.total_messages for s in new}
        for info in old:
            count = now.get(info.id)
            if count is None or (count == 0 < info.total_messages):
                self.session_did_go.emit(info.id)
            elif count < info.total_messages:
                self.messages_did_go.emit(info.id, [])

    def _on_snapshot_read(self, snapshot: Snapshot) -> None:
        self._refreshing = False
        if self._refresh_again:
            QTimer.singleShot(0, self, self.refresh)
        old = self.snapshot.sessions if self.has_snapshot else []
        self.snapshot = snapshot
        self.has_snapshot = True
        self._tell_what_went(old, snapshot.sessions)
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
        if isinstance(exc, MemoryClosed):  # closed while the refresh ran: nothing to show any more
            log.debug("state not refreshed: %s", exc)
            return
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
