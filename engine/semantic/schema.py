"""The vectors' part of migration ``m002_vectors``: message vectors and the durable embedding queue.

``vectors`` holds one float32 blob per (embedder, message), with the session, the dimension and a hash
of the embedded text (unchanged text is never embedded again). ``embed_queue`` holds the ids of messages
waiting to be embedded; it is written in the append's own transaction, so a crash loses no pending work.
The same migration then makes ``context_fts``, the keyword index of hybrid search (see
:mod:`engine.database` and :mod:`engine.search.context`).
"""

from __future__ import annotations

from engine.storage import ddl, frozen_ddl
from engine.storage.sql import Connection


def m002_vectors(conn: Connection) -> None:
    """Create ``vectors`` and ``embed_queue``."""
    ddl.create_missing(conn, frozen_ddl.M002_VECTORS)
