"""The ``vectors``, ``passages`` and ``embed_queue`` tables, and what text of a message is embedded.

What is embedded is ``sender: content`` when the message has a sender (questions name people), else the
content; with :data:`PREVIOUS_TURN` the previous message of the session is put before it (measured in
``bench/retrieval.py``). A message longer than the embedder's window is embedded whole, as passages
(:mod:`engine.semantic.passages`): ``vectors`` holds its first passage's vector, ``passages`` every
passage's with its span. The text's hash is stored with the vector: a message whose text did not change is
never embedded again, and a text already embedded for another message reuses that vector (a message of
one passage).

The rankings read both tables as one set of rows per message (:func:`stats`, :func:`load`: a message of
several passages has several rows, its id repeated); what a search covered counts a message once all its
passages are embedded (:func:`embedded`: a message still queued is not counted).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from engine.messages import Message, own_text
from engine.semantic import passages as passage_split
from engine.semantic.passages import ESTIMATED, Passage, Window
from engine.storage import bulk
from engine.storage.sql import Connection, in_chunks

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ids: TypeAlias = npt.NDArray[np.int64]

    from engine.embedders import Vectors

PREVIOUS_TURN = True
"""Whether the previous turn is embedded with each message (chosen by measurement: see bench/README.md)."""

MAX_CHARS = 2000
""":func:`document_text` cuts longer texts (what benchmarks of short turns embed; the engine embeds
long messages as passages)."""

TABLES = ("vectors", "passages")
"""The tables of vectors a ranking reads: one row per message, and the passages of long messages."""


@dataclass(frozen=True)
class Pending:
    """A queued message and the text to embed for it: ``text`` (its only passage), or ``passages`` (the
    first one's text is ``text``)."""

    message_id: int
    session_id: str
    text: str
    text_hash: str
    passages: tuple[Passage, ...] = ()

    @property
    def parts(self) -> tuple[Passage, ...]:
        """What is embedded for it, one text per passage."""
        return self.passages or (Passage(0, len(self.text), self.text),)


def document_text(message: Message, previous: Message | None = None) -> str:
    """The text embedded for a short ``message`` (``previous``: the session's message before it)."""
    body = own_text(message.sender, message.content)
    if PREVIOUS_TURN and previous is not None:
        body = own_text(previous.sender, previous.content) + "\n" + body
    return body[:MAX_CHARS]


def pending(
    message_id: int, session_id: str, message: Message, previous: Message | None, window: Window = ESTIMATED
) -> Pending:
    """What to embed for ``message``: its passages of ``window`` and their hash."""
    before = own_text(previous.sender, previous.content) if PREVIOUS_TURN and previous is not None else None
    parts, digest = passage_split.split(message.content, message.sender, before, window)
    return Pending(message_id, session_id, parts[0].text, digest, parts if len(parts) > 1 else ())


def enqueue(conn: Connection, messages: Sequence[Message], now: int) -> None:
    """Queue archived messages for embedding (inside the caller's transaction)."""
    rows = [(m.id, m.session, now) for m in messages if m.id is not None and m.session]
    bulk.insert_rows(
        conn, "INSERT OR IGNORE INTO embed_queue(message_id, session_id, queued_at) VALUES", rows
    )


def any_missing(conn: Connection, embedder_id: str) -> bool:
    """Whether an archived message has neither a vector of ``embedder_id`` nor a place in the queue."""
    found = conn.execute(
        "SELECT 1 FROM messages m WHERE NOT EXISTS "
        "(SELECT 1 FROM vectors v WHERE v.embedder = ? AND v.message_id = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM embed_queue q WHERE q.message_id = m.id) LIMIT 1",
        (embedder_id,),
    )
    return found.first() is not None


def enqueue_missing(conn: Connection, embedder_id: str, now: int) -> int:
    """Queue every archived message without a vector of ``embedder_id``; return how many were added."""
    result = conn.execute(
        "INSERT OR IGNORE INTO embed_queue(message_id, session_id, queued_at) "
        "SELECT m.id, m.session_id, ? FROM messages m WHERE NOT EXISTS "
        "(SELECT 1 FROM vectors v WHERE v.embedder = ? AND v.message_id = m.id)",
        (now, embedder_id),
    )
    return int(result.rowcount or 0)


def queued(conn: Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM embed_queue").scalar_one())


def any_vectors(conn: Connection) -> bool:
    """Whether any message has a vector (of any embedder)."""
    return conn.execute("SELECT 1 FROM vectors LIMIT 1").first() is not None


def embedded(conn: Connection, embedder_id: str, session_id: str | None) -> int:
    """How many messages (of one session, or of all) are embedded whole by ``embedder_id``: a vector, and
    no place in the queue (a long message queued again has the vector of its start only, until every
    passage of it is embedded)."""
    if session_id is None:
        sql = "SELECT COUNT(*) FROM vectors WHERE embedder = ?"
        waiting = "SELECT COUNT(*) FROM embed_queue q JOIN vectors v ON v.embedder = ? AND v.message_id = q.message_id"
        args: tuple[str, ...] = (embedder_id,)
    else:
        sql = "SELECT COUNT(*) FROM vectors WHERE embedder = ? AND session_id = ?"
        waiting = (
            "SELECT COUNT(*) FROM embed_queue q JOIN vectors v ON v.embedder = ? AND v.message_id = q.message_id "
            "WHERE q.session_id = ?"
        )
        args = (embedder_id, session_id)
    return int(conn.execute(sql, args).scalar_one()) - int(conn.execute(waiting, args).scalar_one())


def messages(conn: Connection, session_id: str | None) -> int:
    """How many messages are archived (in one session, or in all)."""
    if session_id is None:
        return int(conn.execute("SELECT COUNT(*) FROM messages").scalar_one())
    sql = "SELECT COUNT(*) FROM messages WHERE session_id = ?"
    return int(conn.execute(sql, (session_id,)).scalar_one())


def next_batch(
    conn: Connection, limit: int, window: Window = ESTIMATED, passages: int | None = None
) -> tuple[list[Pending], list[int]]:
    """Up to ``limit`` queued messages with their passages of ``window``, newest first (what was just said
    is searched for first, and a big import's latest conversations are covered first), no more than
    ``passages`` passages in all (a first message that has more comes alone); and queued ids whose message
    is gone."""
    previous_sql = (
        "(SELECT p.sender FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
        "ORDER BY p.id DESC LIMIT 1), "
        "(SELECT p.content FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
        "ORDER BY p.id DESC LIMIT 1)"
        if PREVIOUS_TURN
        else "NULL, NULL"
    )
    rows = conn.execute(
        "SELECT q.message_id, m.session_id, m.role, m.content, m.sender, "
        f"{previous_sql} FROM embed_queue q LEFT JOIN messages m ON m.id = q.message_id "
        "ORDER BY q.message_id DESC LIMIT ?",
        (limit,),
    ).all()
    found: list[Pending] = []
    gone: list[int] = []
    count = 0
    for row in rows:
        if row[1] is None:
            gone.append(int(row[0]))
            continue
        message = Message(role=row[2], content=row[3], sender=row[4] or "")
        previous = Message("user", row[6], sender=row[5] or "") if row[6] is not None else None
        item = pending(int(row[0]), str(row[1]), message, previous, window)
        count += len(item.parts)
        if passages is not None and found and count > passages:
            break
        found.append(item)
    return found, gone


def known_hashes(conn: Connection, embedder_id: str, pending: Sequence[Pending]) -> dict[int, bytes | None]:
    """For each pending message: ``None`` if its own vector is current, the blob of another message with
    the same text if there is one; messages that need embedding are absent."""
    found: dict[int, bytes | None] = {}
    for item in pending:
        own = conn.execute(
            "SELECT text_hash FROM vectors WHERE embedder = ? AND message_id = ?",
            (embedder_id, item.message_id),
        ).first()
        if own is not None and own[0] == item.text_hash:
            found[item.message_id] = None
            continue
        if item.passages:  # several vectors: embedded again
            continue
        other = conn.execute(
            "SELECT vector FROM vectors WHERE embedder = ? AND text_hash = ? LIMIT 1",
            (embedder_id, item.text_hash),
        ).first()
        if other is not None:
            found[item.message_id] = bytes(other[0])
    return found


def save(
    conn: Connection,
    embedder_id: str,
    dim: int,
    items: Sequence[Pending],
    blobs: Sequence[bytes],
    passage_blobs: Mapping[int, Sequence[bytes]] | None = None,
) -> None:
    """Store vectors (float32 blobs) for ``items`` and take them off the queue: ``blobs`` their first
    passages', ``passage_blobs`` every passage's of those that have several (by message id)."""
    if not items:
        return
    conn.execute(
        "DELETE FROM passages WHERE embedder = ? AND message_id = ?",
        [(embedder_id, i.message_id) for i in items],
    )
    given = passage_blobs or {}
    parts = [
        (embedder_id, i.message_id, i.session_id, n, p.start, p.end, dim, b)
        for i in items
        if i.passages
        for n, (p, b) in enumerate(zip(i.passages, given[i.message_id], strict=True))
    ]
    if parts:
        conn.execute(
            "INSERT INTO passages(embedder, message_id, session_id, passage, start_char, end_char, dim, "
            "vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            parts,
        )
    conn.execute(
        "INSERT INTO vectors(embedder, message_id, session_id, dim, text_hash, vector) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(embedder, message_id) DO UPDATE SET "
        "text_hash = excluded.text_hash, vector = excluded.vector, dim = excluded.dim",
        [
            (embedder_id, i.message_id, i.session_id, dim, i.text_hash, b)
            for i, b in zip(items, blobs, strict=True)
        ],
    )
    dequeue(conn, [i.message_id for i in items])


def dequeue(conn: Connection, message_ids: Sequence[int]) -> None:
    if message_ids:
        conn.execute("DELETE FROM embed_queue WHERE message_id = ?", [(i,) for i in message_ids])


def to_blobs(vectors: Vectors) -> list[bytes]:
    import numpy as np

    return [np.ascontiguousarray(v, dtype=np.float32).tobytes() for v in vectors]


def other_embedders(conn: Connection, embedder_id: str) -> list[str]:
    rows = conn.execute("SELECT DISTINCT embedder FROM vectors WHERE embedder != ?", (embedder_id,))
    return [str(r[0]) for r in rows]


def drop_embedder(conn: Connection, embedder_id: str) -> int:
    conn.execute("DELETE FROM passages WHERE embedder = ?", (embedder_id,))
    result = conn.execute("DELETE FROM vectors WHERE embedder = ?", (embedder_id,))
    return int(result.rowcount or 0)


def clear_session(conn: Connection, session_id: str) -> None:
    conn.execute("DELETE FROM vectors WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM passages WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM embed_queue WHERE session_id = ?", (session_id,))


def drop_message(conn: Connection, message_id: int) -> None:
    """Delete a message's vectors, of every embedder, and its passages'."""
    conn.execute("DELETE FROM vectors WHERE message_id = ?", (message_id,))
    conn.execute("DELETE FROM passages WHERE message_id = ?", (message_id,))


def sessions(conn: Connection, embedder_id: str) -> list[str]:
    """Sessions with vectors of ``embedder_id``."""
    rows = conn.execute("SELECT DISTINCT session_id FROM vectors WHERE embedder = ?", (embedder_id,))
    return [str(r[0]) for r in rows]


@dataclass(frozen=True)
class Stats:
    """What identifies a set of vectors cheaply (a cache key)."""

    count: int
    max_id: int
    id_sum: int


def stats(conn: Connection, embedder_id: str, session_id: str, lo: int, hi: int) -> Stats:
    """Count, max and sum of message ids of the session's rows (vectors and passages) with
    ``lo <= id < hi``."""
    count = top = total = 0
    for table in TABLES:
        row = conn.execute(
            f"SELECT COUNT(*), COALESCE(MAX(message_id), 0), COALESCE(SUM(message_id), 0) FROM {table} "
            "WHERE embedder = ? AND session_id = ? AND message_id >= ? AND message_id < ?",
            (embedder_id, session_id, lo, hi),
        ).one()
        count, top, total = count + int(row[0]), max(top, int(row[1])), total + int(row[2])
    return Stats(count, top, total)


_LOAD = {
    "vectors": "SELECT message_id, vector FROM vectors WHERE embedder = ? AND session_id = ? "
    "AND message_id >= ? AND message_id < ? AND dim = ? ORDER BY message_id",
    "passages": "SELECT message_id, vector FROM passages WHERE embedder = ? AND session_id = ? "
    "AND message_id >= ? AND message_id < ? AND dim = ? ORDER BY message_id, passage",
}


def item_ids(conn: Connection, embedder_id: str, session_id: str, lo: int, hi: int, dim: int) -> Ids:
    """The message id of each row :func:`load` returns, in its order (what an index file's items are)."""
    import numpy as np

    found: list[int] = []
    for table in TABLES:
        sql = _LOAD[table].replace("message_id, vector", "message_id", 1)
        found += [int(r[0]) for r in conn.execute(sql, (embedder_id, session_id, lo, hi, dim))]
    return np.asarray(found, dtype=np.int64)


def load(
    conn: Connection, embedder_id: str, session_id: str, lo: int, hi: int, dim: int
) -> tuple[Ids, Vectors]:
    """The session's rows with ``lo <= id < hi`` as (message ids, float32 matrix): its vectors by message
    id, then its passages by message id and place (a long message's id comes once per passage more)."""
    import numpy as np

    rows = [r for table in TABLES for r in conn.execute(_LOAD[table], (embedder_id, session_id, lo, hi, dim))]
    ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
    if not rows:
        return ids, np.zeros((0, dim), dtype=np.float32)
    matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float32).reshape(len(rows), dim)
    return ids, matrix


def _table(name: str) -> str:
    if name not in TABLES:
        raise ValueError(f"no table of vectors named {name!r}")
    return name


def totals(conn: Connection, embedder_id: str, table: str = "vectors") -> tuple[int, int]:
    """How many rows ``embedder_id`` has in ``table``, and the sum of their message ids (what changes when
    any is deleted or replaced: message ids are never reused)."""
    row = conn.execute(
        f"SELECT COUNT(*), COALESCE(SUM(message_id), 0) FROM {_table(table)} WHERE embedder = ?",
        (embedder_id,),
    ).one()
    return int(row[0]), int(row[1])


def top_row(conn: Connection, table: str = "vectors") -> int:
    """The highest row id of ``table`` (any embedder; 0 when empty)."""
    return int(conn.execute(f"SELECT COALESCE(MAX(id), 0) FROM {_table(table)}").scalar_one())


def rows_after(
    conn: Connection, embedder_id: str, after: int, batch: int, table: str = "vectors"
) -> Iterator[list[tuple[int, int, bytes]]]:
    """``(row id, message id, blob)`` of the embedder's vectors with row id > ``after``, in row id order,
    ``batch`` at a time (streamed: only a batch is held)."""
    cursor = conn.raw.cursor()
    try:
        cursor.execute(
            f"SELECT id, message_id, vector FROM {_table(table)} WHERE id > ? AND +embedder = ? ORDER BY id",
            (after, embedder_id),
        )
        while got := cursor.fetchmany(batch):
            yield [(int(r[0]), int(r[1]), bytes(r[2])) for r in got]
    finally:
        cursor.close()


def row_pairs(conn: Connection, embedder_id: str, table: str = "vectors") -> tuple[Ids, Ids]:
    """``(row ids, message ids)`` of every row of ``embedder_id`` in ``table``, ordered by row id."""
    import numpy as np

    cursor = conn.raw.cursor()
    try:
        got = cursor.execute(
            f"SELECT id, message_id FROM {_table(table)} WHERE embedder = ? ORDER BY id", (embedder_id,)
        ).fetchall()
    finally:
        cursor.close()
    pairs = np.asarray(got, dtype=np.int64).reshape(-1, 2)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def by_rows(conn: Connection, row_ids: Sequence[int], table: str = "vectors") -> list[tuple[int, int, bytes]]:
    """``(row id, message id, blob)`` of the given rows that still exist."""
    found: list[tuple[int, int, bytes]] = []
    for chunk, marks in in_chunks([int(i) for i in row_ids]):
        for r in conn.execute(
            f"SELECT id, message_id, vector FROM {_table(table)} WHERE id IN ({marks})", chunk
        ):
            found.append((int(r[0]), int(r[1]), bytes(r[2])))
    return found


@dataclass(frozen=True)
class PassageVector:
    """One stored passage of a message: its span of the content and its float32 blob."""

    message_id: int
    start: int
    end: int
    vector: bytes


def passages_of(conn: Connection, embedder_id: str, message_ids: Sequence[int]) -> list[PassageVector]:
    """The passages of ``embedder_id`` of those of ``message_ids`` that have several, by message and
    place."""
    found: list[PassageVector] = []
    wanted = sorted({int(i) for i in message_ids})
    for chunk, marks in in_chunks(wanted):
        for r in conn.execute(
            "SELECT message_id, start_char, end_char, vector FROM passages "
            f"WHERE embedder = ? AND message_id IN ({marks}) ORDER BY message_id, passage",
            (embedder_id, *chunk),
        ):
            found.append(PassageVector(int(r[0]), int(r[1]), int(r[2]), bytes(r[3])))
    return found
