"""A synthetic Agenvoy home written by the tests: ``.store/history.db`` and ``sessions/<id>/history.json``.

The database has Agenvoy's schema (``messages``, ``session_meta``, ``messages_fts5``), with the ``sender``
column of newer versions or without it; times are Unix ns.
"""

from __future__ import annotations

from pathlib import Path

from tests import rawdb
from tests.engine.exportdata import write_json

SCHEMA = """
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    send_at INTEGER NOT NULL DEFAULT 0,
    role TEXT NOT NULL,
    content TEXT NOT NULL{sender}
);
CREATE INDEX idx_messages_session_send_at ON messages(session_id, send_at);
CREATE TABLE session_meta (session_id TEXT PRIMARY KEY, start_at INTEGER NOT NULL DEFAULT 0);
CREATE VIRTUAL TABLE messages_fts5 USING fts5(role, content, content=messages, content_rowid=id);
"""


def write_db(path: Path, rows: list[tuple[object, ...]], *, sender: bool, wal: bool = True) -> Path:
    """history.db with ``rows`` of (session_id, send_at, role, content[, sender])."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = rawdb.connect(path)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA.format(sender=",\n    sender TEXT NOT NULL DEFAULT ''" if sender else ""))
        columns = "session_id, send_at, role, content" + (", sender" if sender else "")
        marks = ", ".join("?" for _ in columns.split(","))
        conn.executemany(f"INSERT INTO messages({columns}) VALUES ({marks})", rows)
        conn.commit()
    finally:
        conn.close()
    return path


def write_history(home: Path, session: str, records: list[object]) -> Path:
    return write_json(home / "sessions" / session / "history.json", records)
