"""The error memory's tables: migration ``m003_error_memory`` and its full-text indexes.

``error_memory`` holds the records, ``error_memory_vectors`` one vector per record and
``error_memory_state.gen`` counts vector changes: the tables, their columns and why are the classes of
:mod:`engine.errormemory.tables`, created from the statements frozen in :mod:`engine.storage.frozen_ddl`.

The FTS5 tables are external-content tables over ``error_memory`` (tool name, keywords, symptom, cause,
action) kept in step by triggers: ``error_memory_fts`` (``porter unicode61 remove_diacritics 2``) and
``error_memory_tri`` (``trigram``, for CJK). Like the archive's, they are created by :func:`ensure_fts`
(when the error memory opens) if the local SQLite supports them, so a store gains them when SQLite does.
"""

from __future__ import annotations

from engine.storage import ddl, frozen_ddl, fts
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
    ddl.create_missing(conn, frozen_ddl.M003_ERROR_MEMORY)
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
