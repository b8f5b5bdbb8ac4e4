"""The error memory's tables: migration ``m003_error_memory`` and its full-text indexes.

``error_memory`` holds the records (``num`` is the rowid the FTS tables and vectors point at; ``id`` is
the public sha256 hex id; ``dedupe`` makes a repeated write find its record). ``error_memory_vectors``
holds one float32 vector per record with the embedder id, dimension and a hash of the embedded text.
``error_memory_state.gen`` counts vector changes, so a process can keep the matrix in memory and notice
when another process changed it.

The FTS5 tables are external-content tables over ``error_memory`` (tool name, keywords, symptom, cause,
action) kept in step by triggers: ``error_memory_fts`` (``porter unicode61 remove_diacritics 2``) and
``error_memory_tri`` (``trigram``, for CJK). Like the archive's, they are created by :func:`ensure_fts`
(when the error memory opens) if the local SQLite supports them, so a store gains them when SQLite does.
"""

from __future__ import annotations

from engine.storage import fts
from engine.storage.sql import Connection

_COLUMNS = ("tool_name", "keywords", "symptom", "cause", "action")
FTS_TABLES = tuple(
    fts.ExternalFts(name, "error_memory", "num", _COLUMNS, tokenizer, update_of=True, if_not_exists=True)
    for name, tokenizer in (
        ("error_memory_fts", "porter unicode61 remove_diacritics 2"),
        ("error_memory_tri", "trigram"),
    )
)


def m003_error_memory(conn: Connection) -> None:
    """Error records, their vectors and the vector generation counter."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS error_memory (
            num INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            tool_name TEXT NOT NULL,
            keywords TEXT NOT NULL,
            symptom TEXT NOT NULL,
            cause TEXT NOT NULL DEFAULT '',
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            dedupe TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX IF NOT EXISTS ix_error_memory_expires ON error_memory(expires_at)")
    conn.execute("CREATE INDEX IF NOT EXISTS ix_error_memory_tool ON error_memory(tool_name, created_at)")
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS error_memory_vectors (
            num INTEGER PRIMARY KEY REFERENCES error_memory(num) ON DELETE CASCADE,
            embedder TEXT NOT NULL,
            dim INTEGER NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL
        )
        """
    )
    conn.execute("CREATE TABLE IF NOT EXISTS error_memory_state (gen INTEGER NOT NULL)")
    conn.execute(
        "INSERT INTO error_memory_state(gen) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM error_memory_state)"
    )
    for event in ("INSERT", "UPDATE", "DELETE"):
        conn.execute(
            f"CREATE TRIGGER IF NOT EXISTS error_memory_vectors_{event.lower()} AFTER {event} "
            "ON error_memory_vectors BEGIN UPDATE error_memory_state SET gen = gen + 1; END"
        )


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the supported FTS tables and triggers that are missing; return the ones that exist."""
    return fts.ensure(conn, FTS_TABLES, supported)
