"""The migration runner's own table as a SQLModel class, and the statements SQLAlchemy compiles for a
SQLModel class.

SQLModel describes the tables; the migrations that create them hold those statements frozen as text
(:mod:`engine.storage.ddl`), so that no command loads SQLModel. The tests compile the classes with
:func:`statements` and compare.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Field, SQLModel


class MigrationRow(SQLModel, table=True):
    """A migration that has been applied."""

    __tablename__ = "migrations"

    name: str = Field(primary_key=True)
    applied_at: int = 0


def statements(models: Iterable[type[SQLModel]]) -> list[tuple[str, list[str]]]:
    """Each model's table name and the ``CREATE`` statements SQLAlchemy's compiler writes for it (the table,
    then its indexes by name): what a migration freezes for :func:`engine.storage.ddl.create_missing`."""
    dialect = sqlite.dialect()
    found: list[tuple[str, list[str]]] = []
    for model in models:
        table: Any = model.__table__  # type: ignore[attr-defined]
        made = [str(CreateTable(table).compile(dialect=dialect))]
        made += [
            str(CreateIndex(index).compile(dialect=dialect))
            for index in sorted(table.indexes, key=lambda i: str(i.name))
        ]
        found.append((str(table.name), made))
    return found
