"""The migration runner: applies named schema steps in order, each recorded in the ``migrations`` table.

Every change after the first schema is a new step, named ``m<NNN>_<what>``, kept by the part that owns the
tables (creating a table never alters an existing one). The runner knows no table but its own:
:mod:`engine.database` lists every part's steps in the order they are recorded. Each step runs in the
same write transaction as its bookkeeping row, so a migration is applied entirely or not at all. A step's
name is recorded in existing databases and never changes.

An open of an up-to-date database only reads the recorded names. Tables and columns are created from
statements frozen as text (:mod:`engine.storage.frozen_ddl`, run by :mod:`engine.storage.ddl`): no step
loads SQLModel.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from engine.storage import ddl, frozen_ddl
from engine.storage.sql import Connection

log = logging.getLogger("memtray.store")

Step = Callable[[Connection], None]
Migration = tuple[str, Step]
"""A step and the name it is recorded under."""


def apply(conn: Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply the migrations not yet recorded, in the given order; return their names."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'")
    if exists.first() is None:
        ddl.create_missing(conn, frozen_ddl.MIGRATIONS_TABLE)
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied = []
    for name, migration in migrations:
        if name in done:
            continue
        log.info("applying migration %s", name)
        migration(conn)
        conn.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (name, time.time_ns()))
        applied.append(name)
    return applied
