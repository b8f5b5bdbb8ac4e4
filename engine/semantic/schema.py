"""The vectors' part of migration ``m002_vectors``: message vectors and the durable embedding queue.

``vectors`` holds one float32 blob per (embedder, message), with the session, the dimension and a hash
of the embedded text (unchanged text is never embedded again). ``embed_queue`` holds the ids of messages
waiting to be embedded; it is written in the append's own transaction, so a crash loses no pending work.
The same migration then makes ``context_fts``, the keyword index of hybrid search (see
:mod:`engine.database` and :mod:`engine.search.context`).
"""

from __future__ import annotations

from engine.storage.sql import Connection


def m002_vectors(conn: Connection) -> None:
    """Create ``vectors`` and ``embed_queue``."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS vectors ("
        " id INTEGER PRIMARY KEY,"
        " embedder TEXT NOT NULL,"
        " message_id INTEGER NOT NULL,"
        " session_id TEXT NOT NULL,"
        " dim INTEGER NOT NULL,"
        " text_hash TEXT NOT NULL,"
        " vector BLOB NOT NULL,"
        " UNIQUE (embedder, message_id))"
    )
    conn.execute("CREATE INDEX IF NOT EXISTS ix_vectors_session ON vectors(embedder, session_id, message_id)")
    conn.execute("CREATE INDEX IF NOT EXISTS ix_vectors_hash ON vectors(embedder, text_hash)")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS embed_queue ("
        " message_id INTEGER PRIMARY KEY,"
        " session_id TEXT NOT NULL,"
        " queued_at INTEGER NOT NULL)"
    )
    conn.execute("CREATE INDEX IF NOT EXISTS ix_embed_queue_session ON embed_queue(session_id)")
