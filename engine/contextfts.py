"""Keyword search over each message read with the turn before it (the keyword side of hybrid search).

An answer often only makes sense with the question before it: "Yes, last Tuesday!" holds the evidence,
the turn before holds the words a search uses. Measured on LoCoMo (``bench/README.md``), indexing each
message together with the previous turn, and with the speakers' names (``sender: content``), lifts the
keyword side of hybrid search clearly. Plain keyword search (``match="keyword"``) is unchanged.

The table ``context_fts`` (FTS5, ``porter unicode61 remove_diacritics 2``; rowid = message id) is made
by migration ``m002_vectors`` and written by the semantic tier in the append's transaction. CJK text is
still found through the trigram route of plain keyword search, which hybrid search also uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from engine import archive, keyword
from engine.messages import Message
from engine.vectors.rows import own_text

TABLE = "context_fts"


def create(conn: Connection) -> None:
    """Create the table (if FTS5 exists) and index every archived message."""
    try:
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(body, skey, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
    except Exception:  # no FTS5 in this SQLite: hybrid search uses plain keyword search
        return
    last: dict[str, tuple[str, str]] = {}
    batch: list[tuple[int, str, str]] = []
    for row in conn.exec_driver_sql("SELECT id, session_id, skey, sender, content FROM messages ORDER BY id"):
        previous = last.get(row[1])
        batch.append((int(row[0]), _body(previous, row[3] or "", row[4]), row[2]))
        last[row[1]] = (row[3] or "", row[4])
    if batch:
        conn.exec_driver_sql(f"INSERT INTO {TABLE}(rowid, body, skey) VALUES (?, ?, ?)", batch)


def _body(previous: tuple[str, str] | None, sender: str, content: str) -> str:
    own = own_text(sender, content)
    return own if previous is None else own_text(*previous) + "\n" + own


def exists(conn: Connection) -> bool:
    row = conn.execute(text("SELECT 1 FROM sqlite_master WHERE name = :n"), {"n": TABLE}).first()
    return row is not None


def add(conn: Connection, messages: Sequence[Message]) -> None:
    """Index newly archived messages (inside the append's transaction).

    The messages of one append are consecutive in their session, so only the first one's previous turn is
    read from the database; the others take the message before them in the batch.
    """
    rows = []
    previous: dict[str, tuple[str, str] | None] = {}
    keys: dict[str, str] = {}
    for message in messages:
        if message.id is None or not message.session:
            continue
        session = message.session
        if session not in previous:
            prev = conn.execute(
                text(
                    "SELECT sender, content FROM messages WHERE session_id = :s AND id < :i "
                    "ORDER BY id DESC LIMIT 1"
                ),
                {"s": session, "i": message.id},
            ).first()
            previous[session] = (prev[0] or "", prev[1]) if prev is not None else None
            keys[session] = archive.known_key(conn, session) or ""
        rows.append((message.id, _body(previous[session], message.sender, message.content), keys[session]))
        previous[session] = (message.sender, message.content)
    if rows:
        conn.exec_driver_sql(f"INSERT OR REPLACE INTO {TABLE}(rowid, body, skey) VALUES (?, ?, ?)", rows)


def forget(conn: Connection, session: str, message_id: int, following: Any) -> None:
    """Remove a message's row; rewrite the next message's row without it (before the message is deleted).

    Args:
        following: ``(id, sender, content)`` of the session's next message, or None.
    """
    conn.execute(text(f"DELETE FROM {TABLE} WHERE rowid = :i"), {"i": message_id})
    if following is None:
        return
    prev = conn.execute(
        text(
            "SELECT sender, content FROM messages WHERE session_id = :s AND id < :i ORDER BY id DESC LIMIT 1"
        ),
        {"s": session, "i": message_id},
    ).first()
    previous = (prev[0] or "", prev[1]) if prev is not None else None
    key = archive.known_key(conn, session) or ""
    conn.exec_driver_sql(
        f"INSERT OR REPLACE INTO {TABLE}(rowid, body, skey) VALUES (?, ?, ?)",
        (int(following[0]), _body(previous, following[1] or "", following[2]), key),
    )


def clear_session(conn: Connection, session_id: str) -> None:
    conn.execute(
        text(f"DELETE FROM {TABLE} WHERE rowid IN (SELECT id FROM messages WHERE session_id = :s)"),
        {"s": session_id},
    )


def search_ids(conn: Connection, query: str, session_key: str | None, limit: int) -> list[int]:
    """Message ids whose text with the previous turn matches any word of ``query``, best first (BM25)."""
    words = [t.text for t in keyword.parse_natural(query) if t.route == "word"]
    if not words:
        return []
    expr = "body : (" + " OR ".join(keyword.quote(w) for w in words) + ")"
    if session_key:
        expr += f" AND skey : {keyword.quote(session_key)}"
    sql = f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ? ORDER BY bm25({TABLE}, 1.0, 0.0) LIMIT ?"
    return [int(r[0]) for r in conn.exec_driver_sql(sql, (expr, limit))]
