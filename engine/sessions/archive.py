"""Tier 3, the full-text archive: the ``messages`` table and its per-session bookkeeping.

Every message written to history.json is also written here (every append writes both), exactly as
written (a message without text too), and never deleted by compaction. Functions take an open
connection so the caller decides the transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from engine.cjk import cjk_bigrams
from engine.messages import Message
from engine.sessions import identity
from engine.storage import bulk
from engine.storage.sql import Connection, in_chunks

_COLUMNS = "id, session_id, role, content, send_at, sender"


@dataclass(frozen=True)
class Meta:
    """A session's archive bookkeeping (see ``schema.MessageMeta``)."""

    start_at: int = 0
    start_id: int = 0
    hot_last_id: int = 0
    replayed_from: int = 0
    replayed_to: int = 0


def session_key(conn: Connection, session_id: str, now: int) -> str:
    """The session's short key (``s0000042``), registering the session on first use."""
    row = conn.execute("SELECT num FROM sessions WHERE id = ?", (session_id,)).first()
    if row is None:
        conn.execute(
            "INSERT INTO sessions(id, created_at, updated_at) VALUES (?, ?, ?)",
            (session_id, now, now),
        )
        row = conn.execute("SELECT num FROM sessions WHERE id = ?", (session_id,)).one()
    return f"s{int(row[0]):07d}"


def known_key(conn: Connection, session_id: str) -> str | None:
    """The session's short key, or ``None`` if it was never registered."""
    row = conn.execute("SELECT num FROM sessions WHERE id = ?", (session_id,)).first()
    return None if row is None else f"s{int(row[0]):07d}"


def archive_times(messages: Sequence[Message]) -> list[int]:
    """The archive's ``send_at`` per message: a 0 after a timed message in the batch becomes last + 1."""
    times, last = [], 0
    for message in messages:
        if message.send_at:
            times.append(message.send_at)
            last = max(last, message.send_at)
        elif last:
            last += 1
            times.append(last)
        else:
            times.append(0)
    return times


def insert(conn: Connection, session_id: str, messages: Sequence[Message], now: int) -> list[int]:
    """Insert ``messages`` exactly as they are (a message without text too); return their row ids."""
    return insert_sessions(conn, [(session_id, messages)], now)[0]


def insert_sessions(
    conn: Connection, appends: Sequence[tuple[str, Sequence[Message]]], now: int
) -> list[list[int]]:
    """Insert each ``(session, messages)`` in order, all in the same statements; the row ids of each."""
    rows: list[tuple[str, str, int, str, str, str]] = []
    keys: list[str] = []
    for session_id, messages in appends:
        key = session_key(conn, session_id, now) if messages else ""
        keys.append(key)
        times = archive_times(messages)
        rows.extend(
            (session_id, key, t, m.role, m.content, m.sender) for m, t in zip(messages, times, strict=True)
        )
    if not rows:
        return [[] for _ in appends]
    # Few statements, not one per row: the FTS tables follow by trigger (see engine.storage.bulk).
    bulk.insert_rows(
        conn, "INSERT INTO messages(session_id, skey, send_at, role, content, sender) VALUES", rows
    )
    last = int(conn.execute("SELECT last_insert_rowid()").scalar_one())
    first = last - len(rows) + 1  # one write transaction: the rows got consecutive ids
    result: list[list[int]] = []
    bigrams: list[tuple[int, str, str]] = []
    every: list[Message] = []
    for (_, messages), key in zip(appends, keys, strict=True):
        ids = list(range(first, first + len(messages)))
        first += len(messages)
        result.append(ids)
        every.extend(messages)
        bigrams.extend(
            (i, key, grams) for i, m in zip(ids, messages, strict=True) if (grams := cjk_bigrams(m.content))
        )
    identity.record_gids(conn, range(first - len(rows), first), every)
    if bigrams:
        bulk.insert_rows(conn, "INSERT INTO messages_cjk(id, skey, grams) VALUES", bigrams)
    return result


def archive_empty(conn: Connection) -> bool:
    """Whether the archive holds no message at all (a missing, zero-length or replaced database:
    :mod:`engine.repair.emptied`)."""
    return conn.execute("SELECT 1 FROM messages LIMIT 1").first() is None


def has_rows(conn: Connection, session_id: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM messages WHERE session_id = ? LIMIT 1", (session_id,)).first() is not None
    )


def meta(conn: Connection, session_id: str) -> Meta:
    row = conn.execute(
        "SELECT start_at, start_id, hot_last_id, replayed_from, replayed_to FROM message_meta "
        "WHERE session_id = ?",
        (session_id,),
    ).first()
    return Meta(*map(int, row)) if row else Meta()


def cuts(conn: Connection) -> dict[str, int]:
    """Every session's compaction cut: the row id of its first message still in history.json."""
    rows = conn.execute("SELECT session_id, start_id FROM message_meta")
    return {str(s): int(i) for s, i in rows}


def save_meta(conn: Connection, session_id: str, value: Meta) -> None:
    """Save ``start_at``, ``start_id`` and ``hot_last_id`` (the replayed range is kept as it is)."""
    conn.execute(
        "INSERT INTO message_meta(session_id, start_at, start_id, hot_last_id) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET start_at = excluded.start_at, start_id = excluded.start_id, "
        "hot_last_id = excluded.hot_last_id",
        (session_id, value.start_at, value.start_id, value.hot_last_id),
    )


def clear_meta(conn: Connection, session_id: str) -> None:
    """Forget the session's bookkeeping (for a session archived anew)."""
    conn.execute("DELETE FROM message_meta WHERE session_id = ?", (session_id,))


def mark_replayed(conn: Connection, session_id: str, first_id: int, last_id: int) -> None:
    """Record the rows a replay just wrote to history.json (see :func:`engine.sessions.recovery.retried`)."""
    conn.execute(
        "INSERT INTO message_meta(session_id, start_at, start_id, hot_last_id, replayed_from, replayed_to) "
        "VALUES (?, 0, 0, 0, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET replayed_from = excluded.replayed_from, "
        "replayed_to = excluded.replayed_to",
        (session_id, first_id, last_id),
    )


def to_message(row: Any) -> Message:
    """A message from a ``(id, session_id, role, content, send_at, sender)`` row."""
    return Message(
        role=row[2], content=row[3], send_at=int(row[4]), sender=row[5] or "", id=int(row[0]), session=row[1]
    )


def ids_from(conn: Connection, session_id: str, first_id: int) -> list[int]:
    """The ids of the session's messages with ``id >= first_id``, in order."""
    rows = conn.execute(
        "SELECT id FROM messages WHERE session_id = ? AND id >= ? ORDER BY id",
        (session_id, first_id),
    )
    return [int(r[0]) for r in rows]


def rows_from(conn: Connection, session_id: str, first_id: int) -> list[Message]:
    """The session's messages with ``id >= first_id``, oldest first."""
    result = conn.execute(
        f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND id >= ? ORDER BY id",
        (session_id, first_id),
    )
    return [to_message(r) for r in result]


def page(conn: Connection, session_id: str, before_id: int | None, limit: int) -> list[Message]:
    """Up to ``limit`` messages older than ``before_id`` (newest of them first); all sessions if None."""
    bound = before_id if before_id is not None else 2**62
    result = conn.execute(
        f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
        (session_id, bound, limit),
    )
    return [to_message(r) for r in result]


def after(conn: Connection, session_id: str, after_id: int, limit: int) -> list[Message]:
    """Up to ``limit`` messages of the session with ``id > after_id``, oldest first."""
    result = conn.execute(
        f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?",
        (session_id, after_id, limit),
    )
    return [to_message(r) for r in result]


def count_before(conn: Connection, session_id: str, before_id: int | None = None) -> int:
    """How many of the session's messages have ``id < before_id`` (every one of them when None)."""
    bound = before_id if before_id is not None else 2**62
    row = conn.execute(
        "SELECT COUNT(*) FROM messages WHERE session_id = ? AND id < ?", (session_id, bound)
    ).first()
    return int(row[0]) if row else 0


def at_offset(conn: Connection, session_id: str, offset: int, limit: int) -> list[Message]:
    """Up to ``limit`` of the session's messages from position ``offset`` (0: the oldest), oldest first."""
    result = conn.execute(
        f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? ORDER BY id LIMIT ? OFFSET ?",
        (session_id, limit, offset),
    )
    return [to_message(r) for r in result]


def with_rows(conn: Connection, sessions: Iterable[str]) -> set[str]:
    """Those of ``sessions`` that have archived messages (one look-up per 500, so a batch of sessions new
    here costs no query each)."""
    wanted = sorted(set(sessions))
    found: set[str] = set()
    for chunk, marks in in_chunks(wanted):
        rows = conn.execute(f"SELECT DISTINCT session_id FROM messages WHERE session_id IN ({marks})", chunk)
        found.update(str(r[0]) for r in rows)
    return found


def fingerprints(conn: Connection, session_id: str) -> set[tuple[str, str, int]]:
    """``(role, content, send_at)`` of every archived message of the session (import de-duplication)."""
    rows = conn.execute("SELECT role, content, send_at FROM messages WHERE session_id = ?", (session_id,))
    return {(str(r[0]), str(r[1]), int(r[2])) for r in rows}


def by_ids(conn: Connection, ids: Iterable[int]) -> dict[int, Message]:
    wanted = sorted(set(ids))
    found: dict[int, Message] = {}
    for chunk, marks in in_chunks(wanted):
        for row in conn.execute(f"SELECT {_COLUMNS} FROM messages WHERE id IN ({marks})", chunk):
            found[int(row[0])] = to_message(row)
    return found


@dataclass(frozen=True)
class SessionStats:
    """What the archive knows of one session.

    Attributes:
        total: archived messages.
        before_cut: those before the compaction cut (no longer in history.json).
        first_at: Unix ns of the earliest message with a known time (0: none).
        last_at: Unix ns of the latest message (0: none with a known time).
        title: the imported or user-given title ("" when none).
        title_source: ``imported``, ``user`` or "".
    """

    total: int = 0
    before_cut: int = 0
    first_at: int = 0
    last_at: int = 0
    title: str = ""
    title_source: str = ""


def stats(conn: Connection, session_id: str | None = None) -> dict[str, SessionStats]:
    """Per session (or of ``session_id`` only): counts, first and last message times and the stored title
    (one pass over the messages' ids and times; no text is read)."""
    where, params = ("WHERE id = ?", (session_id,)) if session_id is not None else ("", ())
    titles = {
        str(sid): (str(title or ""), str(source or ""))
        for sid, title, source in conn.execute(
            f"SELECT id, title, title_source FROM sessions {where}", params
        )
    }
    result: dict[str, SessionStats] = {}
    where = "WHERE m.session_id = ?" if session_id is not None else ""
    rows = conn.execute(
        "SELECT m.session_id, COUNT(*), SUM(CASE WHEN m.id < COALESCE(mm.start_id, 0) THEN 1 ELSE 0 END), "
        "MIN(CASE WHEN m.send_at > 0 THEN m.send_at END), MAX(m.send_at) "
        f"FROM messages m LEFT JOIN message_meta mm ON mm.session_id = m.session_id {where} "
        "GROUP BY m.session_id",
        params,
    ).fetchall()
    for sid, total, archived, first_at, last_at in rows:
        title, source = titles.pop(str(sid), ("", ""))
        result[str(sid)] = SessionStats(
            int(total), int(archived or 0), int(first_at or 0), int(last_at or 0), title, source
        )
    for sid, (title, source) in titles.items():
        result[sid] = SessionStats(title=title, title_source=source)
    return result


TITLE_SOURCE_CHARS = 2000
"""How much of a first user message a title is made from (a title is one short line of it)."""


def first_user_texts(conn: Connection) -> dict[str, str]:
    """Per session, the first :data:`TITLE_SOURCE_CHARS` characters of its first archived user message
    (one query; a message's whole text is never read)."""
    rows = conn.execute(
        "SELECT m.session_id, substr(m.content, 1, ?) FROM messages m JOIN "
        "(SELECT MIN(id) AS id FROM messages WHERE role = 'user' GROUP BY session_id) f ON m.id = f.id",
        (TITLE_SOURCE_CHARS,),
    )
    return {str(sid): str(text) for sid, text in rows}


def stats_title(conn: Connection, session_id: str) -> tuple[str, str]:
    """The session's stored (title, title_source); ("", "") when it has none."""
    row = conn.execute("SELECT title, title_source FROM sessions WHERE id = ?", (session_id,)).first()
    return ("", "") if row is None else (str(row[0] or ""), str(row[1] or ""))


def first_user_text(conn: Connection, session_id: str) -> str:
    """The first :data:`TITLE_SOURCE_CHARS` characters of the session's first archived user message that
    is not blank ("" when it has none).

    Each message's start is read as a blob (:func:`text_head`): SQLite's ``substr`` would load the whole
    text first, 200 MB for one huge message.
    """
    ids = [
        int(row[0])
        for row in conn.execute(
            "SELECT id FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id", (session_id,)
        )
    ]
    for message_id in ids:
        head = text_head(conn, message_id)
        if head.strip():
            return head
    return ""


def text_head(conn: Connection, message_id: int) -> str:
    """The first :data:`TITLE_SOURCE_CHARS` characters of a message, reading no more than their bytes."""
    try:
        with conn.raw.blobopen("messages", "content", message_id, readonly=True) as blob:
            data = blob.read(TITLE_SOURCE_CHARS * 4)  # UTF-8: at most 4 bytes a character
    except sqlite3.Error:  # gone meanwhile, or not stored as text: ask SQLite for it
        row = conn.execute(
            "SELECT substr(content, 1, ?) FROM messages WHERE id = ?", (TITLE_SOURCE_CHARS, message_id)
        ).first()
        return "" if row is None else str(row[0])
    return data.decode("utf-8", "ignore")[:TITLE_SOURCE_CHARS]  # "ignore": a character cut at the end


def set_title(conn: Connection, session_id: str, title: str, source: str, now: int) -> None:
    """Store a session's title (``source``: ``imported`` or ``user``; an empty title clears it)."""
    session_key(conn, session_id, now)
    conn.execute(
        "UPDATE sessions SET title = ?, title_source = ?, updated_at = ? WHERE id = ?",
        (title, source if title else "", now, session_id),
    )


def delete_session(conn: Connection, session_id: str) -> int:
    """Delete the session's archived messages (the FTS tables follow by trigger) and its meta row."""
    deleted = conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,)).rowcount
    conn.execute("DELETE FROM message_meta WHERE session_id = ?", (session_id,))
    return int(deleted or 0)


def delete_message(conn: Connection, message_id: int) -> None:
    """Delete one archived message (the FTS tables follow by trigger)."""
    conn.execute("DELETE FROM messages WHERE id = ?", (message_id,))


def delete_range(conn: Connection, session_id: str, first_id: int, last_id: int) -> None:
    """Delete the session's messages with ``first_id <= id <= last_id`` (the FTS tables follow by trigger)."""
    conn.execute(
        "DELETE FROM messages WHERE session_id = ? AND id >= ? AND id <= ?",
        (session_id, first_id, last_id),
    )


@contextmanager
def without_overwrite(conn: Connection) -> Iterator[None]:
    """Deletes in this block are not overwritten (``secure_delete=FAST``): overwriting needs free space.

    For taking back rows when the disk may be full; ``secure_delete`` is on again afterwards.
    """
    conn.execute("PRAGMA secure_delete=FAST")
    try:
        yield
    finally:
        conn.execute("PRAGMA secure_delete=ON")


def unregister(conn: Connection, session_id: str) -> None:
    """Delete the session's ``sessions`` row (its short key): the last step of removing a session."""
    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
