"""Creating a migration's tables and columns from its frozen statements, without loading SQLModel.

A migration is history: the tables it made must stay what it made, whatever the SQLModel classes say
later, and creating them must not cost the 0.25 s of importing SQLModel, SQLAlchemy and pydantic (a new
home's first command would pay it). So each step that creates a table or adds a column runs statements
held as text in :mod:`engine.storage.frozen_ddl`, which ``scripts/freeze_ddl.py`` writes from the
SQLModel classes (the ``tables`` module of each part); ``tests/engine/storage/test_schema.py`` fails when
the two drift, and says how to add a table.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.storage.sql import Connection

Table = tuple[str, Sequence[str]]
"""A table's name and the statements that create it: the table, then its indexes (``IF NOT EXISTS``)."""

Column = tuple[str, str, str]
"""A table's name, a column's name and the ``ALTER TABLE … ADD COLUMN`` statement that adds it."""


def create_missing(conn: Connection, tables: Sequence[Table]) -> None:
    """Create each table that does not exist yet (one that exists is left as it is), then its missing
    indexes."""
    for name, statements in tables:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        if found.first() is None:
            conn.execute(statements[0])
        for statement in statements[1:]:
            conn.execute(statement)


def add_missing(conn: Connection, columns: Sequence[Column]) -> None:
    """Add each column its table lacks (a column that exists is left as it is)."""
    for table, column, statement in columns:
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            conn.execute(statement)
