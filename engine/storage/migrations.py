"""The migration runner: applies named schema steps in order, each recorded in the ``migrations`` table.

``SQLModel.metadata.create_all`` never alters an existing table, so every change after the first schema is
a new step, named ``m<NNN>_<what>``, kept by the part that owns the tables. The runner knows no table but
its own: :mod:`engine.database` lists every part's steps in the order they are recorded. Each step runs in
the same write transaction as its bookkeeping row, so a migration is applied entirely or not at all. A
step's name is recorded in existing databases and never changes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from sqlalchemy import Connection, text
from sqlmodel import Field, SQLModel

log = logging.getLogger("memtray.store")

Step = Callable[[Connection], None]
Migration = tuple[str, Step]
"""A step and the name it is recorded under."""


class MigrationRow(SQLModel, table=True):
    """A migration that has been applied."""

    __tablename__ = "migrations"

    name: str = Field(primary_key=True)
    applied_at: int = 0


def apply(conn: Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply the migrations not yet recorded, in the given order; return their names."""
    MigrationRow.metadata.create_all(conn, tables=[MigrationRow.__table__])  # type: ignore[attr-defined]
    done = {row[0] for row in conn.execute(text("SELECT name FROM migrations"))}
    applied = []
    for name, migration in migrations:
        if name in done:
            continue
        log.info("applying migration %s", name)
        migration(conn)
        conn.execute(
            text("INSERT INTO migrations(name, applied_at) VALUES (:n, :t)"), {"n": name, "t": time.time_ns()}
        )
        applied.append(name)
    return applied
