"""The vectors' part of migration ``m002_vectors``: message vectors and the durable embedding queue.

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
