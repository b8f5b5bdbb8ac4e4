"""Every session's vectors of one embedder in memory, as int8 rows (:class:`CrossIndex`): the exact ranking
of a search over all sessions.

Ranking session after session (each one's float32 matrix from SQLite or a cache) takes seconds at 200,000
vectors, whose matrices do not fit a laptop-sized cache. This index holds all of one embedder's vectors, in
blocks of :data:`BLOCK_ROWS` rows, each row as int8 scaled by its largest component (a quarter of float32's
memory: 200,000 vectors of 512 dimensions take 110 MB), with what a filter reads of each message
(:mod:`engine.semantic.columns`). A search masks the rows that its filter and scope admit *before* it ranks,
scores them a block at a time (int8 to float32, then :func:`engine.semantic.exact.scores`), keeps the best
:func:`pool_size` and scores those again with their float32 vectors read back from SQLite: the scores, their
order and the similarity floors are float32's; int8 only chooses the candidates.

The index follows SQLite, whoever writes it (this process or another), before each search unless nothing
was committed since the last one (the database's data version says): the vectors with a higher row id than
it has seen are appended; when the embedder's count of vectors or the sum of their message ids then differ
from the index's (a forgotten message, a reset or removed session, a turn embedded again; message ids are
never reused), the row ids are compared, rows gone from SQLite are masked out for good and rows the index
lacks are read. Once masked rows are :data:`DEAD_SHARE` of it, it is read again. An embedder with more
vectors than :data:`MAX_BYTES` holds is not indexed (an index that grows past it is let go):
:meth:`CrossIndex.sync` says so, and the tier ranks session by session instead, as before.

An index follows one table: ``vectors`` (a row per message) or ``passages`` (every passage of the messages
longer than the embedder's window, :mod:`engine.semantic.passages`). Over passages, a block's candidates
are its messages (the best row of each run of one message's rows, which are written together), rescored
in float32 like any row: a message's score is its best passage's, and a message is ranked once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from engine.embedders import Vectors
from engine.messages import MessageFilter
from engine.semantic import columns, exact, rows
from engine.semantic.columns import Codes, Columns, Ids
from engine.storage.sql import Connection

log = logging.getLogger("memtray.semantic")

BLOCK_ROWS = 4096
"""Rows per block: a block's float32 copy (8 MiB at 512 dimensions) stays in cache for its product."""
MAX_BYTES = 256 * 1024 * 1024
"""The most an index may hold (vectors and columns); above it, searches over all sessions go session by
session."""
ROW_EXTRA_BYTES = 39
"""A row's bytes besides its int8 vector: scale, row id, message id, session, time, role, sender, flags."""
RESCORE_EXTRA = 20
"""Candidates rescored in float32 beyond ``2 k`` (see :func:`pool_size`)."""
READ_BATCH = 2048
"""Vectors read from SQLite per batch while the index grows (only a batch of blobs is held)."""
FULL_SCAN = 20_000
"""Growing by more rows than this reads every message's columns in one pass instead of by id."""
DEAD_SHARE = 0.25
"""The share of masked-out rows (gone from SQLite) at which the index is read again."""


def pool_size(k: int) -> int:
    """How many int8 candidates are rescored in float32 for a top ``k``."""
    return 2 * k + RESCORE_EXTRA


def row_bytes(dim: int) -> int:
    return dim + ROW_EXTRA_BYTES


def quantize(matrix: Vectors) -> tuple[npt.NDArray[np.int8], Vectors]:
    """Rows as int8 and each row's scale (its largest magnitude over 127): ``row ~ int8 * scale``."""
    scale = (
        (np.abs(matrix).max(axis=1) / 127.0).astype(np.float32) if len(matrix) else np.zeros(0, np.float32)
    )
    scale[scale == 0] = 1.0
    return np.rint(matrix / scale[:, None]).astype(np.int8), scale


class _Block:
    """Up to :data:`BLOCK_ROWS` rows; ``size`` of them are filled."""

    def __init__(self, dim: int) -> None:
        self.vectors = np.zeros((BLOCK_ROWS, dim), dtype=np.int8)
        self.scale = np.zeros(BLOCK_ROWS, dtype=np.float32)
        self.row_id = np.zeros(BLOCK_ROWS, dtype=np.int64)
        self.message_id = np.zeros(BLOCK_ROWS, dtype=np.int64)
        self.session = np.zeros(BLOCK_ROWS, dtype=np.int32)
        self.send_at = np.zeros(BLOCK_ROWS, dtype=np.int64)
        self.role = np.zeros(BLOCK_ROWS, dtype=np.int8)
        self.sender = np.zeros(BLOCK_ROWS, dtype=np.int32)
        self.present = np.zeros(BLOCK_ROWS, dtype=np.bool_)  # the row is in SQLite
        self.usable = np.zeros(
            BLOCK_ROWS, dtype=np.bool_
        )  # and ranked (its message exists, its size is right)
        self.size = 0


class CrossIndex:
    """The int8 index of one embedder's vectors. Not thread-safe: the caller serialises its calls."""

    def __init__(
        self, embedder_id: str, dim: int, max_bytes: int | None = None, table: str = "vectors"
    ) -> None:
        self.embedder_id = embedder_id
        self.dim = dim
        self.table = table
        self._grouped = table == "passages"  # several rows per message
        self._max_bytes = MAX_BYTES if max_bytes is None else max_bytes
        self.over = False
        """Whether the last :meth:`sync` found the embedder's vectors too many to hold."""
        self._version: int | None = None  # the data version of the last sync
        self._buffer = np.zeros((0, dim), dtype=np.float32)
        self._clear()

    def _clear(self) -> None:
        self._blocks: list[_Block] = []
        self._sessions = Codes()
        self._senders = Codes()
        self._count = 0  # present rows
        self._message_sum = 0  # of present rows
        self._seen = 0  # the highest row id looked at
        self._dead = 0  # rows no longer present
        self._buffer = np.zeros((0, self.dim), dtype=np.float32)

    @property
    def rows(self) -> int:
        """Rows held, masked-out ones included."""
        return sum(b.size for b in self._blocks)

    # -- following SQLite ------------------------------------------------------------------------------

    def sync(self, conn: Connection, version: int | None = None) -> bool:
        """Bring the index up to date with SQLite. False (holding nothing) when the embedder's vectors would
        take more than the index may hold.

        ``version``: the database's data version (:meth:`engine.storage.store.Store.data_version`), read
        before ``conn`` reads anything; while it stays the one of the last sync, nothing is read.
        """
        if version is not None and version == self._version:
            return not self.over
        self._version = None
        count, message_sum = rows.totals(conn, self.embedder_id, self.table)
        if count * row_bytes(self.dim) > self._max_bytes:
            if not self.over:
                log.info(
                    "%d vectors of %s would take over %d MiB in memory: searches over every session "
                    "rank session by session",
                    count,
                    self.embedder_id,
                    self._max_bytes // (1024 * 1024),
                )
            self._clear()
            self.over = True
            self._version = version
            return False
        self.over = False
        top = rows.top_row(conn, self.table)
        if top > self._seen:
            self._grow(conn, count - self._count)
            self._seen = top  # rows of other embedders up to it need no second look
        if (self._count, self._message_sum) != (count, message_sum):
            self._resync(conn)
        if self._dead > DEAD_SHARE * max(1, self.rows):
            log.debug(
                "the cross-session index of %s is read again (%d rows gone)", self.embedder_id, self._dead
            )
            self._clear()
            self._grow(conn, count)
            self._seen = max(self._seen, top)
        self._version = version
        return True

    def _grow(self, conn: Connection, expected: int) -> None:
        """Append the embedder's vectors with a row id above those seen."""
        table = columns.read_all(conn, self._sessions, self._senders) if expected > FULL_SCAN else None
        for batch in rows.rows_after(conn, self.embedder_id, self._seen, READ_BATCH, self.table):
            mids = np.fromiter((b[1] for b in batch), dtype=np.int64, count=len(batch))
            if table is not None:
                found = columns.lookup(table, mids)
            else:
                found = columns.read(conn, mids, self._sessions, self._senders)
            self._append(batch, found)
            self._seen = max(self._seen, batch[-1][0])

    def _append(self, batch: Sequence[tuple[int, int, bytes]], meta: Columns) -> None:
        n = len(batch)
        size = self.dim * 4
        good = np.fromiter((len(b[2]) == size for b in batch), dtype=np.bool_, count=n)
        matrix = np.zeros((n, self.dim), dtype=np.float32)
        if good.any():
            blob = b"".join(b[2] for b in batch if len(b[2]) == size)
            matrix[good] = np.frombuffer(blob, dtype=np.float32).reshape(-1, self.dim)
        quantized, scale = quantize(matrix)
        row_ids = np.fromiter((b[0] for b in batch), dtype=np.int64, count=n)
        usable = good & meta.found
        done = 0
        while done < n:
            if not self._blocks or self._blocks[-1].size == BLOCK_ROWS:
                self._blocks.append(_Block(self.dim))
            block = self._blocks[-1]
            take = min(n - done, BLOCK_ROWS - block.size)
            at, part = slice(block.size, block.size + take), slice(done, done + take)
            block.vectors[at] = quantized[part]
            block.scale[at] = scale[part]
            block.row_id[at] = row_ids[part]
            block.message_id[at] = meta.message_id[part]
            block.session[at] = meta.session[part]
            block.send_at[at] = meta.send_at[part]
            block.role[at] = meta.role[part]
            block.sender[at] = meta.sender[part]
            block.present[at] = True
            block.usable[at] = usable[part]
            block.size += take
            done += take
        self._count += n
        self._message_sum += int(meta.message_id.sum())

    def _resync(self, conn: Connection) -> None:
        """Compare the rows held with SQLite's: mask out the gone ones, read the missing ones."""
        db_rows, db_messages = rows.row_pairs(conn, self.embedder_id, self.table)
        matched = np.zeros(len(db_rows), dtype=np.bool_)
        for block in self._blocks:
            held = np.flatnonzero(block.present[: block.size])
            if not len(held) or not len(db_rows):
                gone = held
            else:
                pos = np.minimum(np.searchsorted(db_rows, block.row_id[held]), len(db_rows) - 1)
                same = (db_rows[pos] == block.row_id[held]) & (db_messages[pos] == block.message_id[held])
                matched[pos[same]] = True
                gone = held[~same]
            block.present[gone] = False
            block.usable[gone] = False
            self._dead += len(gone)
        missing = [int(i) for i in db_rows[~matched]]
        if missing:
            fetched = rows.by_rows(conn, missing, self.table)
            if fetched:
                mids = np.fromiter((f[1] for f in fetched), dtype=np.int64, count=len(fetched))
                self._append(fetched, columns.read(conn, mids, self._sessions, self._senders))
        if len(db_rows):
            self._seen = max(self._seen, int(db_rows[-1]))
        self._count = sum(int(b.present[: b.size].sum()) for b in self._blocks)
        self._message_sum = sum(int(b.message_id[: b.size][b.present[: b.size]].sum()) for b in self._blocks)

    # -- ranking ---------------------------------------------------------------------------------------

    def rank(
        self,
        conn: Connection,
        query: Vectors,
        k: int,
        where: MessageFilter,
        cuts: Mapping[str, int] | None = None,
    ) -> list[tuple[int, float]]:
        """``(message id, cosine)`` of the ``k`` messages nearest to ``query`` among those ``where`` admits
        (with ``cuts``, a session's compaction cut: only its messages from there on), best first.

        Call :meth:`sync` first. A candidate whose vector left SQLite since is left out.
        """
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        pool = pool_size(k)
        chosen = self._candidates(q, pool, where, cuts)
        if not len(chosen):
            return []
        wanted = dict(zip(chosen[:, 0].tolist(), chosen[:, 1].tolist(), strict=True))  # row id -> message id
        found = [f for f in rows.by_rows(conn, list(wanted), self.table) if wanted.get(f[0]) == f[1]]
        size = self.dim * 4
        found = [f for f in found if len(f[2]) == size]
        if not found:
            return []
        matrix = np.frombuffer(b"".join(f[2] for f in found), dtype=np.float32).reshape(-1, self.dim)
        scores = exact.scores(matrix, q)
        best: dict[int, float] = {}
        for message_id, score in zip((f[1] for f in found), scores.tolist(), strict=True):
            if score > best.get(message_id, float("-inf")):
                best[message_id] = score
        ranked = sorted(best.items(), key=lambda p: (p[1], p[0]), reverse=True)
        return ranked[:k]

    def _candidates(
        self, q: Vectors, pool: int, where: MessageFilter, cuts: Mapping[str, int] | None
    ) -> npt.NDArray[np.int64]:
        """``(row id, message id)`` of the best ``pool`` admitted rows by their int8 scores."""
        if len(self._buffer) < BLOCK_ROWS:
            self._buffer = np.zeros((BLOCK_ROWS, self.dim), dtype=np.float32)
        senders = columns.allowed_senders(where, self._senders)
        floor: Ids | None = None
        if cuts is not None:
            floor = np.zeros(len(self._sessions.names), dtype=np.int64)
            for session, cut in cuts.items():
                code = self._sessions.get(session)
                if code is not None:
                    floor[code] = cut
        best_scores: list[Vectors] = []
        best_rows: list[npt.NDArray[np.intp]] = []
        best_blocks: list[int] = []
        for number, block in enumerate(self._blocks):
            n = block.size
            mask = columns.admitted(
                where, senders, block.usable[:n], block.send_at[:n], block.role[:n], block.sender[:n]
            )
            if floor is not None:
                mask &= block.message_id[:n] >= floor[block.session[:n]]
            chosen = np.flatnonzero(mask)
            if not len(chosen):
                continue
            if len(chosen) == n:
                source, scale = block.vectors[:n], block.scale[:n]
            else:
                source, scale = block.vectors[chosen], block.scale[chosen]
            floats = self._buffer[: len(chosen)]
            np.copyto(floats, source, casting="unsafe")
            scores = exact.scores(floats, q)
            scores *= scale
            if self._grouped and len(chosen) > 1:
                scores, chosen = best_of_runs(scores, chosen, block.message_id[chosen])
            if len(scores) > pool:
                top = np.argpartition(-scores, pool - 1)[:pool]
                scores, chosen = scores[top], chosen[top]
            best_scores.append(scores)
            best_rows.append(chosen)
            best_blocks.extend([number] * len(chosen))
        if not best_scores:
            return np.zeros((0, 2), dtype=np.int64)
        scores = np.concatenate(best_scores)
        at = np.concatenate(best_rows)
        blocks = np.asarray(best_blocks, dtype=np.intp)
        if len(scores) > pool:
            top = np.argpartition(-scores, pool - 1)[:pool]
            at, blocks = at[top], blocks[top]
        out = np.zeros((len(at), 2), dtype=np.int64)
        for i, (number, row) in enumerate(zip(blocks.tolist(), at.tolist(), strict=True)):
            out[i] = (self._blocks[number].row_id[row], self._blocks[number].message_id[row])
        return out


def best_of_runs(
    scores: Vectors, chosen: npt.NDArray[np.intp], message_ids: Ids
) -> tuple[Vectors, npt.NDArray[np.intp]]:
    """Of each run of equal ``message_ids`` (a message's passages, side by side), the best-scored row."""
    starts = np.flatnonzero(np.concatenate(([True], message_ids[1:] != message_ids[:-1])))
    if len(starts) == len(chosen):
        return scores, chosen
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(chosen))))
    top = np.flatnonzero(scores == np.maximum.reduceat(scores, starts)[group])
    keep = top[np.concatenate(([True], group[top][1:] != group[top][:-1]))]
    return scores[keep], chosen[keep]
