"""Creating a migration's tables from its frozen ``CREATE`` statements, without loading SQLModel.

A migration is history: the tables it made must stay what it made, whatever the SQLModel classes say
later, and creating them must not cost the 0.25 s of importing SQLModel, SQLAlchemy and pydantic (a new
home's first command would pay it). So a step that creates tables holds their statements as text, as
SQLAlchemy's DDL compiler wrote them for the SQLModel classes; ``tests/engine/test_database.py`` compiles
the classes (:func:`engine.storage.tables.statements`) and fails when the two differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.storage.sql import Connection

Table = tuple[str, Sequence[str]]
"""A table's name and the statements that create it (the table, then its indexes)."""


def create_missing(conn: Connection, tables: Sequence[Table]) -> None:
    """Run the statements of each table that does not exist yet (one that exists is left as it is)."""
    for name, statements in tables:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        if found.first() is not None:
            continue
        for statement in statements:
            conn.execute(statement)
