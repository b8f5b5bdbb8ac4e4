"""Numbered schema migrations, applied in order and recorded in the ``migrations`` table.

``SQLModel.metadata.create_all`` never alters an existing table, so every change after the first schema is
a new function here, named ``m<NNN>_<what>``, appended to :data:`MIGRATIONS`. Each runs in the same write
transaction as its bookkeeping row, so a migration is applied entirely or not at all.

The FTS5 tables depend on what the local SQLite supports; :func:`ensure_fts` (re)creates the ones that are
missing but supported after every open, so a store made without trigram search gains it later.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import Connection, text

from engine.schema import MessageMeta, MessageRow, MigrationRow, SessionRow, SettingRow
from engine.vectors.schema import m002_vectors

log = logging.getLogger("memtray.store")

Migration = Callable[[Connection], None]

# name -> (the SQLite feature it needs, tokenizer). Both are external-content tables over messages.content
# (and skey, the session's short key, so a query can be limited to one session inside FTS5).
FTS_TABLES = {
    "messages_fts": ("unicode61", "porter unicode61 remove_diacritics 2"),
    "messages_tri": ("trigram", "trigram"),
}


def m001_initial(conn: Connection) -> None:
    """Messages, meta, sessions, settings, and their indexes."""
    tables = [model.__table__ for model in (MessageRow, MessageMeta, SessionRow, SettingRow)]  # type: ignore[union-attr]
    MessageRow.metadata.create_all(conn, tables=tables)
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_messages_session_id ON messages(session_id, id)")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_messages_session_time ON messages(session_id, send_at)"
    )


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_initial", m001_initial),
    ("m002_vectors", m002_vectors),
]


def register(name: str, migration: Migration) -> None:
    """Add a migration defined in another engine module (kept in name order)."""
    if any(existing == name for existing, _ in MIGRATIONS):
        return
    MIGRATIONS.append((name, migration))
    MIGRATIONS.sort(key=lambda item: item[0])


def apply(conn: Connection) -> list[str]:
    """Apply the migrations not yet recorded; return their names."""
    MigrationRow.metadata.create_all(conn, tables=[MigrationRow.__table__])  # type: ignore[attr-defined]
    done = {row[0] for row in conn.execute(text("SELECT name FROM migrations"))}
    applied = []
    for name, migration in MIGRATIONS:
        if name in done:
            continue
        log.info("applying migration %s", name)
        migration(conn)
        conn.execute(
            text("INSERT INTO migrations(name, applied_at) VALUES (:n, :t)"), {"n": name, "t": time.time_ns()}
        )
        applied.append(name)
    return applied


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the FTS tables (and their triggers) that are supported but missing; fill new ones.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.probe_features``).

    Returns:
        The FTS tables that exist after the call.
    """
    present = {row[0] for row in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
    available = []
    for table, (feature, tokenizer) in FTS_TABLES.items():
        if table in present:
            available.append(table)
            continue
        if feature not in supported:
            continue
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE {table} USING fts5(content, skey, content='messages', "
            f"content_rowid='id', tokenize='{tokenizer}')"
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER IF NOT EXISTS {table}_ai AFTER INSERT ON messages BEGIN "
            f"INSERT INTO {table}(rowid, content, skey) VALUES (new.id, new.content, new.skey); END"
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON messages BEGIN "
            f"INSERT INTO {table}({table}, rowid, content, skey) VALUES ('delete', old.id, old.content, old.skey); END"
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER IF NOT EXISTS {table}_au AFTER UPDATE ON messages BEGIN "
            f"INSERT INTO {table}({table}, rowid, content, skey) VALUES ('delete', old.id, old.content, old.skey); "
            f"INSERT INTO {table}(rowid, content, skey) VALUES (new.id, new.content, new.skey); END"
        )
        conn.exec_driver_sql(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
        log.info("created full-text index %s (%s)", table, tokenizer)
        available.append(table)
    return available
