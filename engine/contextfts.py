"""Keyword search over each message read between its neighbours (the keyword side of hybrid search).

An answer often only makes sense with the turns around it: "Yes, last Tuesday!" holds the evidence, the
turn before holds the words a search uses, and the turn after often names what was just said. The table
``context_fts`` (FTS5, ``porter unicode61 remove_diacritics 2``; rowid = message id) keeps each message in
three columns, ``prev`` (the session's message before it), ``own`` and ``next`` (the message after it),
each as ``sender: content``, plus the session key. A search ranks by BM25 with the column weights of
:data:`COLUMN_WEIGHTS`: a message's own words count most, its neighbours' help. Measured on LoCoMo
(``bench/README.md``), this one ranking beats both a message alone and a message with its previous turn
at every cut-off. Plain keyword search (``match="keyword"``) is unchanged.

The table is made by migration ``m002_vectors`` (in this form since ``m007_context_neighbours``) and
written by the semantic tier in the append's transaction: a new message gets its row, and the message
before it gets the new one as its ``next``. CJK text is found through the trigram and bigram routes of
plain keyword search, which hybrid search also uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

from engine import archive, keyword
from engine.messages import Message
from engine.vectors.rows import own_text

TABLE = "context_fts"
COLUMNS = ("prev", "own", "next")
COLUMN_WEIGHTS = (0.5, 1.0, 0.5)
"""BM25 weights of ``prev``, ``own`` and ``next`` (set by ``bench/retrieval.py --sweep``)."""

_INSERT = f"INSERT OR REPLACE INTO {TABLE}(rowid, prev, own, next, skey) VALUES (?, ?, ?, ?, ?)"


def create(conn: Connection) -> None:
    """Create the table (if FTS5 exists) and index every archived message."""
    try:
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(prev, own, next, skey, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
    except Exception:  # no FTS5 in this SQLite: hybrid search uses plain keyword search
        return
    batch: list[list[str | int]] = []  # [id, prev, own, next, skey]
    latest: dict[str, list[str | int]] = {}  # session -> the row of its latest message
    for row in conn.exec_driver_sql("SELECT id, session_id, skey, sender, content FROM messages ORDER BY id"):
        own = own_text(row[3] or "", row[4])
        before = latest.get(row[1])
        if before is not None:
            before[3] = own
        latest[row[1]] = [int(row[0]), before[2] if before is not None else "", own, "", row[2]]
        batch.append(latest[row[1]])
    if batch:
        conn.exec_driver_sql(_INSERT, [tuple(r) for r in batch])


def has_neighbour_columns(conn: Connection) -> bool:
    """Whether the table exists in its current form (``prev``, ``own``, ``next`` columns)."""
    try:
        names = {r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({TABLE})")}
    except Exception:
        return False
    return {"prev", "own", "next"} <= names


def m007_context_neighbours(conn: Connection) -> None:
    """Rebuild ``context_fts`` with the ``prev``/``own``/``next`` columns (it had previous turn + own)."""
    if not exists(conn) or has_neighbour_columns(conn):
        return
    conn.exec_driver_sql(f"DROP TABLE {TABLE}")
    create(conn)


def exists(conn: Connection) -> bool:
    row = conn.execute(text("SELECT 1 FROM sqlite_master WHERE name = :n"), {"n": TABLE}).first()
    return row is not None


def _neighbour(conn: Connection, session: str, message_id: int, after: bool) -> tuple[int, str] | None:
    """``(id, sender: content)`` of the session's message just before (or after) ``message_id``."""
    sql = (
        "SELECT id, sender, content FROM messages WHERE session_id = :s AND id > :i ORDER BY id LIMIT 1"
        if after
        else "SELECT id, sender, content FROM messages WHERE session_id = :s AND id < :i "
        "ORDER BY id DESC LIMIT 1"
    )
    row = conn.execute(text(sql), {"s": session, "i": message_id}).first()
    return None if row is None else (int(row[0]), own_text(row[1] or "", row[2]))


def _set_next(conn: Connection, message_id: int, value: str) -> None:
    conn.execute(text(f"UPDATE {TABLE} SET next = :v WHERE rowid = :i"), {"v": value, "i": message_id})


def add(conn: Connection, messages: Sequence[Message]) -> None:
    """Index newly archived messages (inside the append's transaction).

    The messages of one append are consecutive in their session and come after all its other messages,
    so only the first one's previous turn is read from the database (and gets it as its ``next``); the
    others take their neighbours from the batch.
    """
    rows: list[list[str | int]] = []  # [id, prev, own, next, skey]
    latest: dict[str, list[str | int]] = {}  # session -> the row of its latest message
    for message in messages:
        if message.id is None or not message.session:
            continue
        session, own = message.session, own_text(message.sender, message.content)
        before = latest.get(session)
        if before is not None:
            before[3] = own
            prev, key = before[2], before[4]
        else:
            previous = _neighbour(conn, session, message.id, after=False)
            prev = previous[1] if previous is not None else ""
            if previous is not None:
                _set_next(conn, previous[0], own)
            key = archive.known_key(conn, session) or ""
        latest[session] = [message.id, prev, own, "", key]
        rows.append(latest[session])
    if rows:
        conn.exec_driver_sql(_INSERT, [tuple(r) for r in rows])


def forget(conn: Connection, session: str, message_id: int) -> None:
    """Remove a message's row and join its neighbours' rows around the gap (before the message is deleted)."""
    conn.execute(text(f"DELETE FROM {TABLE} WHERE rowid = :i"), {"i": message_id})
    previous = _neighbour(conn, session, message_id, after=False)
    following = _neighbour(conn, session, message_id, after=True)
    if previous is not None:
        _set_next(conn, previous[0], following[1] if following is not None else "")
    if following is not None:
        conn.execute(
            text(f"UPDATE {TABLE} SET prev = :v WHERE rowid = :i"),
            {"v": previous[1] if previous is not None else "", "i": following[0]},
        )


def clear_session(conn: Connection, session_id: str) -> None:
    conn.execute(
        text(f"DELETE FROM {TABLE} WHERE rowid IN (SELECT id FROM messages WHERE session_id = :s)"),
        {"s": session_id},
    )


def search(conn: Connection, query: str, session_key: str | None, limit: int) -> list[tuple[int, float]]:
    """``(message id, score)`` of the messages whose own or neighbouring text matches any word of
    ``query``, best first (weighted BM25; higher is better)."""
    words = [t.text for t in keyword.parse_natural(query) if t.route == "word"]
    if not words:
        return []
    expr = "{" + " ".join(COLUMNS) + "} : (" + " OR ".join(keyword.quote(w) for w in words) + ")"
    if session_key:
        expr += f" AND skey : {keyword.quote(session_key)}"
    weights = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
    sql = f"SELECT rowid, bm25({TABLE}, {weights}) AS rank FROM {TABLE} WHERE {TABLE} MATCH ? ORDER BY rank LIMIT ?"
    return [(int(r[0]), -float(r[1])) for r in conn.exec_driver_sql(sql, (expr, limit))]
