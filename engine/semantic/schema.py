"""The vectors' migrations: ``m002_vectors`` (message vectors and the durable embedding queue) and
``m016_passages`` (the passages of long messages).

``vectors`` holds one float32 blob per (embedder, message); ``embed_queue`` the ids of messages waiting
to be embedded, written in the append's own transaction. The tables, their columns and why are the
classes of :mod:`engine.semantic.tables`, created from the statements frozen in
:mod:`engine.storage.frozen_ddl`.
The same migration then makes ``context_fts``, the keyword index of hybrid search (see
:mod:`engine.database` and :mod:`engine.search.context`).
"""

from __future__ import annotations

from engine.storage import ddl, frozen_ddl
from engine.storage.sql import Connection


def m002_vectors(conn: Connection) -> None:
    """Create ``vectors`` and ``embed_queue``."""
    ddl.create_missing(conn, frozen_ddl.M002_VECTORS)


REQUEUE_CHARS = 400
"""Messages longer than this (or after one: it is their previous turn) are queued again by
``m016_passages``: no embedder's window holds fewer characters (e5 reads about 500 CJK characters)."""


def m016_passages(conn: Connection) -> None:
    """Create ``passages`` and queue again the messages that may be longer than their embedder's window,
    so the background embedder embeds them whole (one whose text fits, unchanged, is taken off the queue
    without being embedded: its vector's text hash is current). ``queued_at`` is 0: nothing orders by it."""
    ddl.create_missing(conn, frozen_ddl.M016_PASSAGES)
    conn.execute(
        "INSERT OR IGNORE INTO embed_queue(message_id, session_id, queued_at) "
        "SELECT id, session_id, 0 FROM messages WHERE length(content) > ?",
        (REQUEUE_CHARS,),
    )
    conn.execute(
        "INSERT OR IGNORE INTO embed_queue(message_id, session_id, queued_at) "
        "SELECT n.id, n.session_id, 0 FROM messages m "
        "JOIN messages n ON n.id = (SELECT MIN(x.id) FROM messages x WHERE x.session_id = m.session_id "
        "AND x.id > m.id) WHERE length(m.content) > ?",
        (REQUEUE_CHARS,),
    )
