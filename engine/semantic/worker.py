"""The background embedder: one thread that drains ``embed_queue`` in batches, and runs index builds.

Appends only queue message ids (in their own transaction) and wake the thread, so they return at once.
The thread loads the embedder first (off the caller's thread), queues every message that lacks a vector
of that embedder (so work left by a crash, an older version or another embedder is picked up), then
embeds batch after batch. A text already embedded (same hash) is reused, never embedded again. When the
queue held a re-embedding for a new embedder, ``progress(done, total)`` reports it and the old
embedder's vectors are dropped once it is complete.

An embedding failure (a model error, Gemini's quota) leaves the batch queued and is retried with a
growing pause. A failure of the environment (a full disk, a read-only folder: ``StorageError`` or
``OSError``) is said in one log line, without a traceback, when it starts and when it ends; the thread
backs off the same way meanwhile. The thread also polls the queue now and then, so work queued by another
process (the CLI, the MCP server) is embedded here too. The newest queued messages are embedded first.

While :attr:`EmbedWorker.paused` says so, no batch is embedded (the queue waits; tasks and index builds
still run), and the worker counts as idle. Each saved batch is recorded in :attr:`EmbedWorker.meter`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from engine.clock import Clock
from engine.embedders import Embedder
from engine.embedders.chooser import Choice
from engine.embedders.hashing import HashEmbedder
from engine.errors import StorageError
from engine.semantic import rows
from engine.semantic.passages import window_for
from engine.semantic.progress import RateMeter
from engine.storage.sql import Connection
from engine.storage.store import Store

log = logging.getLogger("memtray.vectors")

BATCH = 16
"""Messages per batch, and passages: a batch holds at most this many passages, or one longer message."""
POLL_S = 2.0
MAX_BACKOFF_S = 60.0
JOIN_S = 10.0

Loader = Callable[[], tuple[Embedder, Choice]]
Progress = Callable[[int, int], None]


def load(loader: Loader) -> tuple[Embedder, Choice]:
    """The embedder and the choice made, or hash vectors (with the reason) when it fails to load."""
    try:
        return loader()
    except Exception:
        log.exception("the embedder failed to load; using hash vectors")
        embedder = HashEmbedder()
        return embedder, Choice("auto", "hash", embedder.id, "the chosen embedder failed to load")


class EmbedWorker:
    """The thread. Start it with :meth:`start`; stop it with :meth:`close`."""

    def __init__(
        self,
        store: Store,
        loader: Loader,
        clock: Clock,
        *,
        on_saved: Callable[[dict[str, int]], None],
        on_embedder_dropped: Callable[[str], None],
    ) -> None:
        self._store = store
        self._loader = loader
        self._clock = clock
        self._on_saved = on_saved
        self._on_embedder_dropped = on_embedder_dropped
        self._cond = threading.Condition()
        self._ready = threading.Event()
        self._stop = False
        self._busy = True  # until the first look at the queue
        self._tasks: deque[Callable[[], None]] = deque()
        self._later: deque[Callable[[], None]] = deque()
        self._embedder: Embedder | None = None
        self.choice: Choice | None = None
        self.progress: Progress | None = None
        self.paused: Callable[[], bool] = lambda: False
        self.meter = RateMeter()
        self._reembed_total = 0
        self._scan = False  # queue what lacks a vector of the embedder (at load; again after a failure)
        self._thread = threading.Thread(target=self._run, name="memtray-embedder", daemon=True)

    def start(self) -> None:
        """Start the thread (once; later calls do nothing)."""
        with self._cond:
            if not self._thread.is_alive() and self._thread.ident is None:
                self._thread.start()

    @property
    def started(self) -> bool:
        return self._thread.ident is not None

    # -- for other threads ------------------------------------------------------------------------

    def embedder(self, timeout: float | None = None) -> Embedder | None:
        """The embedder, once loaded (waits for the load up to ``timeout``)."""
        self._ready.wait(timeout)
        return self._embedder

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def submit(self, task: Callable[[], None], *, when_idle: bool = False) -> None:
        """Run ``task`` on the worker thread; ``when_idle``: once the queue is empty (index builds)."""
        with self._cond:
            (self._later if when_idle else self._tasks).append(task)
            self._cond.notify_all()

    def switch(self, loader: Loader) -> None:
        """Use another embedder: load it on the thread and re-embed everything in the background."""

        def task() -> None:
            self._load(loader)

        self.submit(task)

    def wait_idle(self, timeout: float | None) -> bool:
        """Block until the queue is empty and no task is running; False if ``timeout`` passed first.

        While paused, the worker is idle once the batch in flight is done (the queue may still hold work).
        """
        if not self.started:
            return True  # this process does not embed (see SemanticTier(background=False))
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._store.read() as conn:
                waiting = rows.queued(conn)
            with self._cond:
                if (waiting == 0 or self.paused()) and not self._busy and not self._tasks and not self._later:
                    return True
                if not self._thread.is_alive():
                    return False
                self._cond.notify_all()
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.05 if left is None else min(left, 0.05))

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread.is_alive():
            # A batch in flight finishes first; the queue is durable, so a slow one is not waited for.
            self._thread.join(timeout=JOIN_S)
            if self._thread.is_alive():
                log.warning("the embedder thread is still busy; leaving it (its work stays queued)")

    # -- the thread -------------------------------------------------------------------------------

    def _load(self, loader: Loader) -> None:
        embedder, choice = load(loader)
        self._embedder, self.choice = embedder, choice
        self._ready.set()
        self._scan = True
        self._queue_missing()

    def _queue_missing(self) -> None:
        """Queue every message without a vector of the embedder (work left by a crash, another embedder).

        The write lock is taken only when something is missing: a reading process never waits for it.
        """
        embedder = self._embedder
        if not self._scan or embedder is None:
            return
        now = self._clock()

        def queue(conn: Connection) -> tuple[int, list[str], int]:
            added = rows.enqueue_missing(conn, embedder.id, now) if rows.any_missing(conn, embedder.id) else 0
            return added, rows.other_embedders(conn, embedder.id), rows.queued(conn)

        added, others, total = self._store.write_if_needed(queue)
        if others:
            self._reembed_total = total
            log.info("re-embedding %d messages with %s (replacing %s)", total, embedder.id, ", ".join(others))
        elif added:
            log.info("queued %d messages without vectors for embedding with %s", added, embedder.id)
        self._scan = False

    def _run(self) -> None:
        try:
            self._load(self._loader)
        except (StorageError, OSError) as exc:  # loaded, but the queue could not be written: retried below
            log.warning("the background embedder cannot save for now (%s); it will try again", exc)
        failures = 0
        environment = False  # the failures now are the environment's (said once, not at every retry)
        while True:
            with self._cond:
                if self._stop:
                    return
                task = self._tasks.popleft() if self._tasks else None
                if task is None and self.paused():
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait(POLL_S)
                    continue
                self._busy = True
            try:
                self._queue_missing()
                if task is not None:
                    task()
                    continue
                worked = self._embed_batch()
                failures = 0
                if environment:
                    environment = False
                    log.warning("the background embedder can save again; embedding resumes")
            except Exception as exc:
                failures += 1
                pause = min(MAX_BACKOFF_S, 2.0 ** min(failures, 6))
                if isinstance(exc, (StorageError, OSError)):
                    if not environment:
                        log.warning(
                            "the background embedder cannot save (%s); it tries again, less and less often",
                            exc,
                        )
                    else:
                        log.debug(
                            "the background embedder still cannot save (%s); next try in %.0fs", exc, pause
                        )
                    environment = True
                else:
                    log.exception("embedding failed; retrying in %.0fs", pause)
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
                    if not self._stop:
                        self._cond.wait(pause)
                continue
            if not worked:
                self._finish_reembedding()
                with self._cond:
                    later = self._later.popleft() if self._later else None
                if later is not None:
                    later()
                    continue
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
                    if not self._stop and not self._tasks and not self._later:
                        self._cond.wait(POLL_S)

    def _embed_batch(self) -> bool:
        embedder = self._embedder
        assert embedder is not None
        if self.paused():
            return False
        with self._store.read() as conn:
            pending, gone = rows.next_batch(conn, BATCH, window_for(embedder), BATCH)
            known = rows.known_hashes(conn, embedder.id, pending)
        if not pending and not gone:
            return False
        current = [p.message_id for p in pending if p.message_id in known and known[p.message_id] is None]
        reused = [p for p in pending if known.get(p.message_id) is not None]
        fresh = [p for p in pending if p.message_id not in known]
        # the same text twice is embedded once
        unique = list(dict.fromkeys(part.text for p in fresh for part in p.parts))
        made = (
            dict(zip(unique, rows.to_blobs(embedder.encode_documents(unique)), strict=True)) if unique else {}
        )
        blobs = [made[p.text] for p in fresh]
        passage_blobs = {p.message_id: [made[part.text] for part in p.passages] for p in fresh if p.passages}
        with self._store.write() as conn:
            rows.dequeue(conn, gone + current)
            saved = reused + fresh
            rows.save(
                conn,
                embedder.id,
                embedder.dim,
                saved,
                [known[p.message_id] or b"" for p in reused] + blobs,
                passage_blobs,
            )
            left = rows.queued(conn) if self._reembed_total else 0
        self.meter.record(len(saved))
        lowest: dict[str, int] = {}
        for item in reused + fresh:
            lowest[item.session_id] = min(lowest.get(item.session_id, item.message_id), item.message_id)
        if lowest:
            self._on_saved(lowest)
        if self._reembed_total and self.progress is not None:
            self.progress(max(0, self._reembed_total - left), self._reembed_total)
        return True

    def _finish_reembedding(self) -> None:
        embedder = self._embedder
        if not self._reembed_total or embedder is None or self.paused():  # paused: the queue is not done
            return
        with self._store.write() as conn:
            for other in rows.other_embedders(conn, embedder.id):
                dropped = rows.drop_embedder(conn, other)
                log.info("re-embedding done: dropped %d vectors of %s", dropped, other)
                self._on_embedder_dropped(other)
        if self.progress is not None:
            self.progress(self._reembed_total, self._reembed_total)
        self._reembed_total = 0
