"""Tier 2 and beyond: message vectors and their nearest-neighbour search (:class:`SemanticTier`).

The tier follows the archive as an :class:`engine.sessions.listeners.ArchiveListener`: appended messages
are queued for embedding in the append's transaction (the background :class:`EmbedWorker` embeds them), a
compaction schedules a rebuild of the session's archive index, a forgotten message deletes its vector and
the session's index files (rebuilt without it), a reset or removal deletes the session's vectors, queue
rows and index files.

Search, per session:

- the recent tier (messages since the compaction cut, i.e. still in history.json): exact float32 search
  over the session's vectors with id >= the cut, cached in memory and checked against SQLite each time;
- the archive (``scope="all"``; the original searched recent messages only): the vectors below the cut,
  through the session's Annoy index when there are at least ``annoyindex.EXACT_BELOW`` of them, else
  exactly. A missing, stale or damaged index file is rebuilt in the background (with a log line) and the
  search runs exactly meanwhile.

``session=None`` searches every session at once, exactly, through the in-memory int8 index of the embedder's
vectors (:mod:`engine.semantic.crossindex`, built at the first such search and kept in step with SQLite);
when the vectors are too many for its bound, session by session as above, merged by score. A search's
:class:`~engine.messages.MessageFilter` applies before any top k is taken: a mask over the index's rows, or
over a session's matrices (searched exactly then, the archive too: an Annoy index cannot filter first). The
tier ranks by vectors only; keyword and hybrid search, and the hits, are
:class:`engine.search.conductor.Search`'s.

A message longer than the embedder's window has a vector per passage (:mod:`engine.semantic.passages`):
every ranking reads them as rows of that message, and a message ranks once, by its best passage;
:meth:`SemanticTier.best_passages` says which passage of a hit's message matched a query (what a hit names
and the viewer highlights). The archive index of a session holds its passages as items of their message.

A search never waits for the backlog: it ranks what is embedded, and :meth:`SemanticTier.coverage` says
how much that is. A process that does not embed in the background (a CLI command) loads the model only
for a query, and only when some message has a vector at all (:meth:`SemanticTier.has_vectors`); it never
starts the embedding thread. The background embedder can be paused (:meth:`SemanticTier.set_paused`, the
``embedding_paused`` setting); :meth:`SemanticTier.status` reports the backlog, its rate and what is left.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.clock import Clock
from engine.embedders import Embedder
from engine.embedders.chooser import Choice, injected, select
from engine.errors import StorageError, VectorIndexError
from engine.messages import EVERY_MESSAGE, Message, MessageFilter
from engine.paths import Paths
from engine.semantic import annoyindex, exact, rows
from engine.semantic.annoyindex import AnnoyArchive
from engine.semantic.centroid import Centroids
from engine.semantic.progress import Coverage
from engine.semantic.rows import Stats
from engine.semantic.worker import EmbedWorker, Progress, load
from engine.sessions import archive
from engine.storage.sql import Connection
from engine.storage.store import Store

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embedders import Vectors
    from engine.semantic.crossindex import CrossIndex
    from engine.semantic.rows import Ids

log = logging.getLogger("memtray.semantic")

ANNOY_EXTRA = 4
"""An archive index holding passages is asked for up to ``k * (1 + ANNOY_EXTRA)`` items, so that its best
``k`` messages are among them although a message may come once per passage."""

TOP = 2**62
LOAD_WAIT_S = 120.0
CACHE_BYTES = 256 * 1024 * 1024
"""In-memory matrices (recent tiers, small archives) kept at most, least recently used dropped first."""


@dataclass(frozen=True)
class SemanticStatus:
    """What the settings window shows.

    Attributes:
        choice: the embedder in use and why; ``None`` while it loads.
        queued: messages waiting to be embedded (the backlog).
        rebuilding: sessions whose archive index is waiting to be rebuilt or being rebuilt.
        embedded: messages with a vector of the embedder in use (0 while it loads).
        total: messages in the archive.
        rate: messages embedded per second over the last minute; ``None`` when this process has not
            embedded in the last minute (paused, idle, or it does not embed in the background).
        eta_s: seconds until the backlog is embedded at that rate; ``None`` without a rate, 0 without a
            backlog.
        paused: whether the background embedder is paused.
    """

    choice: Choice | None
    queued: int
    rebuilding: int = 0
    embedded: int = 0
    total: int = 0
    rate: float | None = None
    eta_s: float | None = None
    paused: bool = False


class SemanticTier:
    """Vectors of one memory: the embedding worker, the indexes, and their ranking of a query."""

    def __init__(
        self,
        paths: Paths,
        store: Store,
        clock: Clock,
        *,
        setting: str = "auto",
        embedder: Embedder | None = None,
        gemini_key: Callable[[], str | None] | None = None,
        gemini_base_url: str = "",
        background: bool = True,
    ) -> None:
        self._paths = paths
        self._store = store
        self._clock = clock
        self._gemini_key = gemini_key
        self._gemini_base_url = gemini_base_url
        annoyindex.clean_leftovers(paths.vectors_dir)
        self._lock = threading.Lock()
        self._annoy: dict[str, AnnoyArchive] = {}
        self._rebuilding: set[str] = set()  # index rebuilds waiting for the queue to drain
        self._building: set[str] = set()  # the one being built now
        self._cache: OrderedDict[tuple[str, str, str], tuple[tuple[Stats, int, int], Ids, Vectors]] = (
            OrderedDict()
        )
        self._cache_bytes = 0
        self._cross: CrossIndex | None = None  # every session's vectors of the embedder in use
        self._cross_passages: CrossIndex | None = None  # and their long messages' passages
        self._cross_lock = threading.Lock()  # one search at a time reads or updates it
        self._centroids = Centroids()
        self._last_query: tuple[str, str, Vectors] | None = None  # (embedder id, text, vector)
        self._load = self._loader(setting, embedder)
        self._local: tuple[Embedder, Choice] | None = None  # the query model of a process that does not embed
        self._local_lock = threading.Lock()
        self._paused = False
        self._worker = EmbedWorker(
            store,
            self._load,
            clock,
            on_saved=self._on_saved,
            on_embedder_dropped=self._on_embedder_dropped,
        )
        self._worker.paused = lambda: self._paused
        if background:
            self._worker.start()

    def _loader(self, setting: str, embedder: Embedder | None) -> Callable[[], tuple[Embedder, Choice]]:
        if embedder is not None:
            given = embedder
            return lambda: (given, injected(given))
        return lambda: select(setting, gemini_key=self._gemini_key, gemini_base_url=self._gemini_base_url)

    # -- state for the settings window ------------------------------------------------------------

    @property
    def choice(self) -> Choice | None:
        """The embedder in use and why (``None`` until it has loaded)."""
        if self._worker.choice is None and self._local is not None:
            return self._local[1]
        return self._worker.choice

    def status(self) -> SemanticStatus:
        with self._lock:
            rebuilding = len(self._rebuilding | self._building)
        choice = self.choice
        with self._store.read() as conn:
            queued = rows.queued(conn)
            embedded = rows.embedded(conn, choice.embedder_id, None) if choice is not None else 0
            total = rows.messages(conn, None)
        rate = None if self._paused else self._worker.meter.rate()
        eta = 0.0 if queued == 0 else (queued / rate if rate else None)
        return SemanticStatus(choice, queued, rebuilding, embedded, total, rate, eta, self._paused)

    @property
    def paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        """Pause or resume the background embedder (the queue is kept; searches still rank what is
        embedded)."""
        self._paused = paused
        if self._worker.started:
            self._worker.wake()

    def set_progress(self, callback: Progress | None) -> None:
        """``callback(done, total)`` is called on the worker thread while a re-embedding runs."""
        self._worker.progress = callback

    def switch_embedder(self, setting: str = "auto", embedder: Embedder | None = None) -> None:
        """Use another embedder; everything is re-embedded in the background (see :meth:`set_progress`)."""
        self._load = self._loader(setting, embedder)
        with self._local_lock:
            self._local = None
        self._worker.switch(self._load)

    # -- ArchiveListener hooks --------------------------------------------------------------------

    def messages_added(self, conn: Connection, messages: Sequence[Message]) -> None:
        rows.enqueue(conn, messages, self._clock())
        if self._worker.started:
            self._worker.wake()

    def session_compacted(self, session: str, start_id: int) -> None:
        self._schedule_rebuild(session)

    def session_cleared(self, conn: Connection, session: str) -> None:
        rows.clear_session(conn, session)
        self._drop_index(conn, session)

    def _drop_index(self, conn: Connection, session: str) -> None:
        """Unload the session's archive index and delete its files (a cache: rebuilt from SQLite)."""
        key = archive.known_key(conn, session)
        with self._lock:
            old = self._annoy.pop(session, None)
            if old is not None:
                old.unload()
            self._uncache(lambda key: key[1] == session)
        if key is not None and self._paths.vectors_dir.is_dir():
            for path in self._paths.vectors_dir.glob(f"{key}.*"):
                path.unlink(missing_ok=True)

    def message_forgotten(self, conn: Connection, session: str, message_id: int) -> None:
        """Drop the message's vector and queue entry, and redo the next message's, whose embedded text
        carries this one as its previous turn (before the row is deleted)."""
        rows.drop_message(conn, message_id)
        conn.execute("DELETE FROM embed_queue WHERE message_id = ?", (message_id,))
        following = conn.execute(
            "SELECT id, sender, content FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT 1",
            (session, message_id),
        ).first()
        if following is not None:
            rows.drop_message(conn, int(following[0]))
            rows.enqueue(
                conn,
                [Message("user", following[2], 0, following[1] or "", int(following[0]), session)],
                self._clock(),
            )
        if message_id < archive.meta(conn, session).start_id:  # in the archive index's file: drop it
            self._drop_index(conn, session)
        self._schedule_rebuild(session)

    def loaded_embedder(self, timeout: float = LOAD_WAIT_S) -> Embedder | None:
        """The embedder once it has loaded (waiting up to ``timeout``), or None if it is not available
        (also in a process that does not embed in the background: records are then embedded later)."""
        if not self._worker.started:
            return None
        return self._worker.embedder(timeout)

    def wait_idle(self, timeout: float | None) -> bool:
        return self._worker.wait_idle(timeout)

    def close(self) -> None:
        self._worker.close()
        with self._lock:
            for index in self._annoy.values():
                index.unload()
            self._annoy.clear()
            self._uncache(lambda key: True)
        with self._cross_lock:
            self._cross = self._cross_passages = None

    # -- worker callbacks -------------------------------------------------------------------------

    def _on_saved(self, lowest: dict[str, int]) -> None:
        """New vectors were stored; an archive index missing some of them is rebuilt."""
        with self._store.read() as conn:
            stale = [s for s, low in lowest.items() if low < archive.meta(conn, s).start_id]
        for session in stale:
            self._schedule_rebuild(session)

    def _on_embedder_dropped(self, embedder_id: str) -> None:
        with self._cross_lock:
            if self._cross is not None and self._cross.embedder_id == embedder_id:
                self._cross = self._cross_passages = None
        with self._lock:
            self._uncache(lambda key: key[0] == embedder_id)
            for session in [s for s, a in self._annoy.items() if a.record.embedder == embedder_id]:
                self._annoy.pop(session).unload()
        folder = self._paths.vectors_dir
        if folder.is_dir():
            for path in folder.glob(f"*.{annoyindex._safe(embedder_id)}.*"):
                path.unlink(missing_ok=True)

    def _schedule_rebuild(self, session: str) -> None:
        """Rebuild the session's index on the worker once the queue is empty (in a process that does not
        embed in the background: when :meth:`finish_rebuilds` is called, or the worker starts)."""
        with self._lock:
            if session in self._rebuilding:
                return
            self._rebuilding.add(session)
        self._worker.submit(lambda: self._rebuild(session), when_idle=True)

    def finish_rebuilds(self) -> None:
        """In a process that does not embed in the background (a CLI search), build now, in the caller's
        thread, the archive indexes its searches found missing or out of date (elsewhere the worker does)."""
        if self._worker.started:
            return
        while True:
            with self._lock:
                session = next(iter(sorted(self._rebuilding)), None)
            if session is None:
                return
            try:
                self._rebuild(session)
            except Exception:  # the search is answered; a later one finds the index missing and tries again
                log.exception("could not rebuild the archive index of session %s", session)

    def _rebuild(self, session: str) -> None:
        """Build the session's archive index if it is big enough (on the worker thread).

        It waits for the write in progress first: a rebuild is scheduled from inside the transaction that
        forgets a message, and one that read the rows before that commit would write the forgotten
        message's vectors into the new file (and nothing would build it again)."""
        with self._lock:
            self._rebuilding.discard(session)
            self._building.add(session)
        try:
            try:
                with self._store.write():
                    pass
            except StorageError:  # a read-only home: nothing is being written here either
                pass
            self._build_index(session)
        finally:
            with self._lock:
                self._building.discard(session)

    def _build_index(self, session: str) -> None:
        embedder = self._worker.embedder() if self._worker.started else self.embedder()
        if embedder is None:
            return
        with self._store.read() as conn:
            key = archive.known_key(conn, session)
            cut = archive.meta(conn, session).start_id
            stats = rows.stats(conn, embedder.id, session, 0, cut)
            if key is None:
                return
            ann_path, json_path = annoyindex.paths_for(self._paths.vectors_dir, key, embedder.id)
            if stats.count < annoyindex.EXACT_BELOW:
                annoyindex.remove(ann_path, json_path)
                return
            with self._lock:
                current = self._annoy.get(session)
            if current is not None and current.record.matches(embedder.id, embedder.dim, cut, stats):
                return
            ids, matrix = rows.load(conn, embedder.id, session, 0, cut, embedder.dim)
        if os.name == "nt":  # a mapped file cannot be replaced there
            with self._lock:
                old = self._annoy.pop(session, None)
                if old is not None:
                    old.unload()
        annoyindex.build(ann_path, json_path, ids, matrix, embedder=embedder.id, cut=cut, stats=stats)
        loaded = annoyindex.load(ann_path, json_path, ids)
        with self._lock:
            old = self._annoy.pop(session, None)
            if old is not None:
                old.unload()
            if loaded is not None:
                self._annoy[session] = loaded

    # -- search -----------------------------------------------------------------------------------

    def embedder(self) -> Embedder:
        """The loaded embedder (waits for it to load). A process that does not embed in the background
        loads it here, for queries only.

        Raises:
            VectorIndexError: it did not load in time.
        """
        if not self._worker.started:
            with self._local_lock:
                if self._local is None:
                    self._local = load(self._load)
                return self._local[0]
        embedder = self._worker.embedder(LOAD_WAIT_S)
        if embedder is None:
            raise VectorIndexError("the embedding model is still loading; try again in a moment")
        return embedder

    def has_vectors(self) -> bool:
        """Whether any message has a vector yet (without one there is nothing to rank, nor a model to load)."""
        with self._store.read() as conn:
            return rows.any_vectors(conn)

    def coverage(self, session: str | None, embedder_id: str | None) -> Coverage:
        """How many messages of ``session`` (None: of all) have a vector of ``embedder_id`` (None: no
        embedder, none)."""
        with self._store.read() as conn:
            total = rows.messages(conn, session)
            embedded = rows.embedded(conn, embedder_id, session) if embedder_id is not None else 0
        return Coverage(embedded, total)

    def search_vectors(
        self, query: str, *, session: str | None, scope: str, k: int, where: MessageFilter = EVERY_MESSAGE
    ) -> list[tuple[int, float]]:
        """``(message id, cosine)`` of the ``k`` messages nearest to ``query`` among those ``where`` admits
        (applied before the top ``k`` is taken), best first.

        Args:
            query: the query text, cleaned (``engine.search.query.clean``).
            session: one session, or None for every session.
            scope: ``recent`` (since the compaction cut) or ``all`` (the archive too).
            where: which messages may be ranked.

        Raises:
            VectorIndexError: the embedder did not load in time.
        """
        embedder = self.embedder()
        return self._nearest(embedder, embedder.encode_query(query), session, scope, where, k)

    def search_meaning(
        self, query: str, *, session: str | None, scope: str, k: int, where: MessageFilter = EVERY_MESSAGE
    ) -> tuple[list[tuple[int, float]], float | None]:
        """:meth:`search_vectors`, and the query's cosine with the centroid of the embedder's vectors (its
        nearness to the memory as a whole, :mod:`engine.semantic.centroid`; None without vectors).

        Raises:
            VectorIndexError: the embedder did not load in time.
        """
        embedder = self.embedder()
        vector = self._query_vector(embedder, query)
        with self._store.read() as conn:
            middle = self._centroids.get(conn, embedder.id, embedder.dim)
        import numpy as np

        base = None if middle is None else float(np.dot(np.asarray(vector).reshape(-1), middle))
        return self._nearest(embedder, vector, session, scope, where, k), base

    def _query_vector(self, embedder: Embedder, query: str) -> Vectors:
        """``query`` embedded (the last one is kept: :meth:`best_passages` asks for it again)."""
        last = self._last_query
        if last is not None and last[0] == embedder.id and last[1] == query:
            return last[2]
        vector = embedder.encode_query(query)
        self._last_query = (embedder.id, query, vector)
        return vector

    def best_passages(self, query: str, message_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """For each of ``message_ids`` embedded as several passages: the character span of its content
        that is nearest to ``query`` (the passage that gave it its score); messages of one passage are
        absent (their whole text is what matched).

        Raises:
            VectorIndexError: the embedder did not load in time.
        """
        if not message_ids:
            return {}
        embedder = self.embedder()
        with self._store.read() as conn:
            found = rows.passages_of(conn, embedder.id, message_ids)
        found = [p for p in found if len(p.vector) == embedder.dim * 4]
        if not found:
            return {}
        import numpy as np

        matrix = np.frombuffer(b"".join(p.vector for p in found), dtype=np.float32).reshape(-1, embedder.dim)
        scores = exact.scores(matrix, self._query_vector(embedder, query)).tolist()
        best: dict[int, tuple[float, tuple[int, int]]] = {}
        for passage, score in zip(found, scores, strict=True):
            if passage.message_id not in best or score > best[passage.message_id][0]:
                best[passage.message_id] = (score, (passage.start, passage.end))
        return {message_id: span for message_id, (_, span) in best.items()}

    def _nearest(
        self,
        embedder: Embedder,
        vector: Vectors,
        session: str | None,
        scope: str,
        where: MessageFilter,
        k: int,
    ) -> list[tuple[int, float]]:
        if session is None:
            ranked = self._rank_everywhere(embedder, vector, scope, where, k)
            if ranked is not None:
                return ranked
        found: list[tuple[int, float]] = []
        with self._store.read() as conn:
            sessions = [session] if session is not None else rows.sessions(conn, embedder.id)
            for sid in sessions:
                found.extend(self._rank_session(conn, embedder, sid, scope, where, vector, k))
        found.sort(key=lambda pair: (pair[1], pair[0]), reverse=True)
        return found[:k]

    def _rank_everywhere(
        self, embedder: Embedder, vector: Vectors, scope: str, where: MessageFilter, k: int
    ) -> list[tuple[int, float]] | None:
        """The ranking over every session from the cross-session index; None when the embedder's vectors
        are too many for it (the caller ranks session by session)."""
        from engine.semantic.crossindex import CrossIndex  # numpy: loaded by a search, not by every command

        with self._cross_lock:
            index, parts = self._cross, self._cross_passages
            if (
                index is None
                or index.embedder_id != embedder.id
                or index.dim != embedder.dim
                or parts is None
            ):
                index = self._cross = CrossIndex(embedder.id, embedder.dim)
                parts = self._cross_passages = CrossIndex(embedder.id, embedder.dim, table="passages")
            try:
                version: int | None = self._store.data_version()
            except StorageError:  # a full disk with no -wal file: read as it is, checked at every search
                version = None
            with self._store.read() as conn:
                if not index.sync(conn, version) or not parts.sync(conn, version):
                    return None
                cuts = archive.cuts(conn) if scope == "recent" else None
                return best_of(
                    index.rank(conn, vector, k, where, cuts) + parts.rank(conn, vector, k, where, cuts), k
                )

    def _rank_session(
        self,
        conn: Connection,
        embedder: Embedder,
        session: str,
        scope: str,
        where: MessageFilter,
        vector: Vectors,
        k: int,
    ) -> list[tuple[int, float]]:
        """One session's best ``k``: its recent tier exactly, its archive through its Annoy index; exactly
        both when ``where`` leaves messages out (an Annoy index cannot filter before it ranks)."""
        cut = archive.meta(conn, session).start_id
        if where.narrows:
            return self._rank_session_filtered(conn, embedder, session, cut, scope, where, vector, k)
        ids, matrix = self._matrix(conn, embedder, session, "recent", cut, TOP)
        found = top_messages(ids, matrix, vector, k)
        if scope == "all" and cut > 0:
            found.extend(self._search_archive(conn, embedder, session, cut, vector, k))
        return found

    def _rank_session_filtered(
        self,
        conn: Connection,
        embedder: Embedder,
        session: str,
        cut: int,
        scope: str,
        where: MessageFilter,
        vector: Vectors,
        k: int,
    ) -> list[tuple[int, float]]:
        """The session's best ``k`` among the messages ``where`` admits, exactly (recent, then archive)."""
        import numpy as np

        from engine.semantic import columns
        from engine.semantic.columns import Codes

        parts = [("recent", cut, TOP)] + ([("archive", 0, cut)] if scope == "all" and cut > 0 else [])
        found: list[tuple[int, float]] = []
        sessions, senders = Codes(), Codes()
        for part, lo, hi in parts:
            ids, matrix = self._matrix(conn, embedder, session, part, lo, hi)
            if not len(ids):
                continue
            messages = columns.lookup(columns.read_range(conn, session, lo, hi, sessions, senders), ids)
            found.extend(
                top_messages(ids, matrix, vector, k, np.flatnonzero(messages.admitted(where, senders)))
            )
        return found

    def _matrix(
        self, conn: Connection, embedder: Embedder, session: str, part: str, lo: int, hi: int
    ) -> tuple[Ids, Vectors]:
        stats = rows.stats(conn, embedder.id, session, lo, hi)
        key = (embedder.id, session, part)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached[0] == (stats, lo, hi):
                self._cache.move_to_end(key)
                return cached[1], cached[2]
        ids, matrix = rows.load(conn, embedder.id, session, lo, hi, embedder.dim)
        with self._lock:
            old = self._cache.pop(key, None)
            if old is not None:
                self._cache_bytes -= old[2].nbytes
            self._cache[key] = ((stats, lo, hi), ids, matrix)
            self._cache_bytes += matrix.nbytes
            while self._cache_bytes > CACHE_BYTES and len(self._cache) > 1:
                _, (_, _, dropped) = self._cache.popitem(last=False)
                self._cache_bytes -= dropped.nbytes
        return ids, matrix

    def _uncache(self, dropped: Callable[[tuple[str, str, str]], bool]) -> None:
        """Drop the cached matrices whose (embedder, session, part) key ``dropped`` names (under the lock)."""
        for key in [k for k in self._cache if dropped(k)]:
            self._cache_bytes -= self._cache.pop(key)[2].nbytes

    def _search_archive(
        self, conn: Connection, embedder: Embedder, session: str, cut: int, vector: Vectors, k: int
    ) -> list[tuple[int, float]]:
        found: list[tuple[int, float]] = []
        with self._lock:  # an index is only unloaded under the lock, so it stays mapped here
            index = self._annoy.get(session)
            if index is not None and index.record.embedder == embedder.id and index.record.cut <= cut:
                ids, scores = index.search(
                    vector, min(len(index.ids), k + min(index.repeats, k * ANNOY_EXTRA))
                )
                found = best_of(list(zip(ids.tolist(), scores.tolist(), strict=True)), k)
                built_cut = index.record.cut
            else:
                built_cut = -1
        if built_cut >= 0:
            if built_cut < cut:  # compacted since the build (a rebuild is queued): search the gap exactly
                gap_ids, matrix = self._matrix(conn, embedder, session, "gap", built_cut, cut)
                found.extend(top_messages(gap_ids, matrix, vector, k))
            return found
        stats = rows.stats(conn, embedder.id, session, 0, cut)
        if stats.count == 0:
            return []
        if stats.count >= annoyindex.EXACT_BELOW and self._open_index(conn, embedder, session, cut, stats):
            return self._search_archive(conn, embedder, session, cut, vector, k)
        all_ids, matrix = self._matrix(conn, embedder, session, "archive", 0, cut)
        return top_messages(all_ids, matrix, vector, k)

    def _open_index(self, conn: Connection, embedder: Embedder, session: str, cut: int, stats: Stats) -> bool:
        """Load the session's index file if it matches SQLite; else schedule a rebuild and say so."""
        key = archive.known_key(conn, session)
        if key is None:
            return False
        ann_path, json_path = annoyindex.paths_for(self._paths.vectors_dir, key, embedder.id)
        record = annoyindex.read_record(json_path)
        index = None
        if record is not None and record.matches(embedder.id, embedder.dim, cut, stats):
            ids = rows.item_ids(conn, embedder.id, session, 0, cut, embedder.dim)
            index = annoyindex.load(ann_path, json_path, ids)
        if index is None:
            reason = (
                "missing"
                if not ann_path.exists()
                else ("out of date" if record is not None and record.cut != cut else "damaged or stale")
            )
            with self._lock:
                pending = session in self._rebuilding or session in self._building
            if not pending:  # said once per rebuild, not at every search until it is done
                log.warning(
                    "the archive index of session %s is %s: rebuilding it in the background "
                    "(searching exactly meanwhile)",
                    session,
                    reason,
                )
            self._schedule_rebuild(session)
            return False
        with self._lock:
            old = self._annoy.pop(session, None)
            self._annoy[session] = index
            if old is not None:
                old.unload()
        return True


def best_of(pairs: Sequence[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` best ``(message id, score)`` of ``pairs``, each message once with its best score."""
    best: dict[int, float] = {}
    for message_id, score in pairs:
        if score > best.get(message_id, float("-inf")):
            best[message_id] = score
    return sorted(best.items(), key=lambda p: (p[1], p[0]), reverse=True)[:k]


def top_messages(
    ids: Ids, matrix: Vectors, vector: Vectors, k: int, among: npt.NDArray[np.intp] | None = None
) -> list[tuple[int, float]]:
    """The ``k`` messages of the rows ``ids``/``matrix`` nearest to ``vector`` (with ``among``: of those
    rows), each once with its best row's cosine, best first. A message has a row per passage: the top
    ``k`` plus the rows beyond one per message holds the best ``k`` messages."""
    import numpy as np

    extra = len(ids) - len(np.unique(ids)) if len(ids) else 0
    order, scores = exact.top_k(matrix, vector, k + extra, among)
    return best_of(list(zip(ids[order].tolist(), scores.tolist(), strict=True)), k)
