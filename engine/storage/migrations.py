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
from dataclasses import dataclass

from sqlalchemy import Connection, text

from engine.cjk import GLOB as CJK_GLOB
from engine.errormemory.schema import m003_error_memory
from engine.llm.usage import m004_usage
from engine.search.schema import m008_cjk_bopomofo
from engine.semantic.schema import m002_vectors
from engine.sessions.schema import MessageMeta, MessageRow, MigrationRow, SessionRow, SettingRow

log = logging.getLogger("memtray.store")

Migration = Callable[[Connection], None]


@dataclass(frozen=True)
class FtsTable:
    """An external-content FTS5 table over ``messages.content`` (and ``skey``, to filter by session).

    Attributes:
        feature: the SQLite feature it needs (see ``store.Features.tokenizers``).
        tokenizer: the FTS5 tokenizer.
        only_glob: index only rows whose content matches this GLOB (None: every row).
        source: the content table (``messages``, or ``messages_cjk`` for the bigrams).
        column: the indexed text column of the source.
        skey_sql: the SQL of the indexed session key, ``{row}`` standing for ``new``/``old``/the source.
    """

    feature: str
    tokenizer: str
    only_glob: str | None = None
    source: str = "messages"
    column: str = "content"
    skey_sql: str = "{row}.skey"


SKEY_BASE = 0xE001
SKEY_SPAN = 6000
TRIGRAM_SKEY_SQL = (
    "char(57344, 57345 + CAST(substr({row}.skey, 2) AS INTEGER) / 6000, "
    "57345 + CAST(substr({row}.skey, 2) AS INTEGER) % 6000)"
)
"""In the trigram table the session key is three private-use characters: exactly one trigram, unique per
session. ``s0000042`` would be six trigrams, ``000`` among them in every row: a phrase that slow to match."""


def trigram_skey(skey: str) -> str:
    """The trigram table's form of a session key (see :data:`TRIGRAM_SKEY_SQL`)."""
    number = int(skey[1:])
    return chr(0xE000) + chr(SKEY_BASE + number // SKEY_SPAN) + chr(SKEY_BASE + number % SKEY_SPAN)


FTS_TABLES = {
    "messages_fts": FtsTable("unicode61", "porter unicode61 remove_diacritics 2"),
    # CJK bigrams (two-character words: 電腦, 記憶), kept in messages_cjk by archive.insert; see m005.
    "messages_bi": FtsTable("unicode61", "unicode61", source="messages_cjk", column="grams"),
    # Trigrams serve CJK text (which unicode61 cannot split into words); only rows with CJK characters are
    # indexed, which halves the cost of a mixed archive's inserts and makes it ~0 for English-only ones.
    "messages_tri": FtsTable("trigram", "trigram", CJK_GLOB, skey_sql=f"{TRIGRAM_SKEY_SQL}"),
}


def m001_initial(conn: Connection) -> None:
    """Messages, meta, sessions, settings, and their indexes."""
    tables = [model.__table__ for model in (MessageRow, MessageMeta, SessionRow, SettingRow)]  # type: ignore[union-attr]
    MessageRow.metadata.create_all(conn, tables=tables)
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_messages_session_id ON messages(session_id, id)")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_messages_session_time ON messages(session_id, send_at)"
    )


def m005_cjk_bigrams(conn: Connection) -> None:
    """``messages_cjk``: the CJK bigrams of each message with CJK text, for two-character searches."""
    from engine.search.keyword import cjk_bigrams

    conn.exec_driver_sql(
        "CREATE TABLE IF NOT EXISTS messages_cjk (id INTEGER PRIMARY KEY REFERENCES messages(id) "
        "ON DELETE CASCADE, skey TEXT NOT NULL, grams TEXT NOT NULL)"
    )
    rows = conn.exec_driver_sql(f"SELECT id, skey, content FROM messages WHERE content GLOB '{CJK_GLOB}'")
    batch = [(i, k, grams) for i, k, c in rows if (grams := cjk_bigrams(c))]
    if batch:
        conn.exec_driver_sql("INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", batch)


def m006_trigram_session_key(conn: Connection) -> None:
    """Drop the trigram table made with the six-trigram session key; ``ensure_fts`` rebuilds it."""
    for suffix in ("ai", "ad", "aud", "aui"):
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS messages_tri_{suffix}")
    conn.exec_driver_sql("DROP TABLE IF EXISTS messages_tri")


def m007_context_neighbours(conn: Connection) -> None:
    """Rebuild the hybrid keyword index with a message's next turn too (see ``engine.search.context``)."""
    from engine.search import context as contextfts

    contextfts.m007_context_neighbours(conn)


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_initial", m001_initial),
    ("m002_vectors", m002_vectors),
    ("m003_error_memory", m003_error_memory),
    ("m004_usage", m004_usage),
    ("m005_cjk_bigrams", m005_cjk_bigrams),
    ("m006_trigram_session_key", m006_trigram_session_key),
    ("m007_context_neighbours", m007_context_neighbours),
    ("m008_cjk_bopomofo", m008_cjk_bopomofo),
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


AUTOMERGE = 8
"""FTS5 merges segments once this many share a level (default 4): measured ~45 % faster bulk inserts with
both tables (6.7k -> 9.6k rows/s), at the cost of a few more segments per query."""


def _tune(conn: Connection, table: str) -> None:
    current = conn.exec_driver_sql(f"SELECT v FROM {table}_config WHERE k = 'automerge'").scalar()
    if current != AUTOMERGE:
        conn.exec_driver_sql(f"INSERT INTO {table}({table}, rank) VALUES ('automerge', {AUTOMERGE})")


def _create_fts(conn: Connection, name: str, table: FtsTable) -> None:
    src, col = table.source, table.column
    conn.exec_driver_sql(
        f"CREATE VIRTUAL TABLE {name} USING fts5({col}, skey, content='{src}', "
        f"content_rowid='id', tokenize='{table.tokenizer}')"
    )
    new_rows = f"WHEN new.{col} GLOB '{table.only_glob}' " if table.only_glob else ""
    old_rows = f"WHEN old.{col} GLOB '{table.only_glob}' " if table.only_glob else ""
    new_key, old_key = table.skey_sql.format(row="new"), table.skey_sql.format(row="old")
    insert = f"INSERT INTO {name}(rowid, {col}, skey) VALUES (new.id, new.{col}, {new_key});"
    delete = (
        f"INSERT INTO {name}({name}, rowid, {col}, skey) VALUES ('delete', old.id, old.{col}, {old_key});"
    )
    conn.exec_driver_sql(f"CREATE TRIGGER {name}_ai AFTER INSERT ON {src} {new_rows}BEGIN {insert} END")
    conn.exec_driver_sql(f"CREATE TRIGGER {name}_ad AFTER DELETE ON {src} {old_rows}BEGIN {delete} END")
    conn.exec_driver_sql(f"CREATE TRIGGER {name}_aud AFTER UPDATE ON {src} {old_rows}BEGIN {delete} END")
    conn.exec_driver_sql(f"CREATE TRIGGER {name}_aui AFTER UPDATE ON {src} {new_rows}BEGIN {insert} END")
    if table.only_glob:
        conn.exec_driver_sql(
            f"INSERT INTO {name}(rowid, {col}, skey) SELECT id, {col}, {table.skey_sql.format(row=src)} "
            f"FROM {src} WHERE {col} GLOB '{table.only_glob}'"
        )
    else:
        conn.exec_driver_sql(f"INSERT INTO {name}({name}) VALUES ('rebuild')")
    _tune(conn, name)
    log.info("created full-text index %s (%s over %s.%s)", name, table.tokenizer, src, col)


def ensure_fts(conn: Connection, supported: set[str]) -> list[str]:
    """Create the FTS tables (and their triggers) that are supported but missing; fill new ones.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.probe_features``).

    Returns:
        The FTS tables that exist after the call.
    """
    present = {row[0] for row in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
    available = []
    for name, table in FTS_TABLES.items():
        if name in present:
            available.append(name)
            _tune(conn, name)
            continue
        if table.feature not in supported:
            continue
        _create_fts(conn, name, table)
        available.append(name)
    return available
