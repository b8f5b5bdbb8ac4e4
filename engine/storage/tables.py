"""SQLModel tables created on the store's connection, and the migration runner's own table.

SQLModel describes the tables; SQLAlchemy's DDL compiler turns each into SQLite's ``CREATE TABLE`` and
``CREATE INDEX`` statements, which run on the :class:`engine.storage.sql.Connection` of the migration's
transaction. A table that exists is left as it is. Only migrations import this module: loading
SQLModel costs more than an ordinary command.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Field, SQLModel

from engine.storage.sql import Connection, text


class MigrationRow(SQLModel, table=True):
    """A migration that has been applied."""

    __tablename__ = "migrations"

    name: str = Field(primary_key=True)
    applied_at: int = 0


def create(conn: Connection, models: Iterable[type[SQLModel]]) -> None:
    """Create the tables of ``models`` (and their indexes) that do not exist yet."""
    dialect = sqlite.dialect()
    for model in models:
        table: Any = model.__table__  # type: ignore[attr-defined]
        found = conn.execute(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :n"), {"n": table.name}
        )
        if found.first() is not None:
            continue
        conn.exec_driver_sql(str(CreateTable(table).compile(dialect=dialect)))
        for index in sorted(table.indexes, key=lambda i: str(i.name)):
            conn.exec_driver_sql(str(CreateIndex(index).compile(dialect=dialect)))
