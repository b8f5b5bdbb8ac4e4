"""The memory's database: every part's migrations in the order they are recorded, and the store opened
with them.

Each part keeps its migrations next to its tables; this module only puts them in order. The names are
recorded in existing databases: they never change, and a new migration is added at the end.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from engine.errormemory import schema as error_memory
from engine.errormemory.schema import m003_error_memory
from engine.llm.usage import m004_usage
from engine.search import context
from engine.search import migrations as search
from engine.search.migrations import m008_cjk_bopomofo
from engine.semantic import schema as vectors
from engine.sessions import migrations as archive
from engine.storage.migrations import Migration
from engine.storage.sql import Connection
from engine.storage.store import Store
from engine.sync.schema import m013_sync

log = logging.getLogger("memtray.store")


def _vectors_then_context(conn: Connection) -> None:
    """Migration ``m002_vectors``: message vectors and the embedding queue, then the hybrid keyword index."""
    vectors.m002_vectors(conn)
    context.create(conn)


def _unicode_fold(conn: Connection) -> None:
    """Migration ``m011_unicode_fold``: every full-text index holds its texts folded for search
    (:mod:`engine.textfold`): the archive's and the context index's rows that folding changes are indexed
    again, the error memory's tables are made again."""
    search.m011_unicode_fold(conn)
    error_memory.m011_unicode_fold(conn)


MIGRATIONS: tuple[Migration, ...] = (
    ("m001_initial", archive.m001_initial),
    ("m002_vectors", _vectors_then_context),
    ("m003_error_memory", m003_error_memory),
    ("m004_usage", m004_usage),
    ("m005_cjk_bigrams", archive.m005_cjk_bigrams),
    ("m006_trigram_session_key", archive.m006_trigram_session_key),
    ("m007_context_neighbours", context.m007_context_neighbours),
    ("m008_cjk_bopomofo", m008_cjk_bopomofo),
    ("m009_session_titles", archive.m009_session_titles),
    ("m010_replayed_rows", archive.m010_replayed_rows),
    ("m011_unicode_fold", _unicode_fold),
    ("m012_global_ids", archive.m012_global_ids),
    ("m013_sync", m013_sync),
    ("m014_forget_records", archive.m014_forget_records),
    ("m015_one_tombstone_table", archive.m015_one_tombstone_table),
    ("m016_passages", vectors.m016_passages),
)


def open_store(path: Path) -> Store:
    """Open (creating and migrating if needed) the database at ``path``, with the archive's FTS tables.

    Raises:
        CorruptStore: the database fails its check (``memtray repair`` rebuilds it).
        StorageError: it cannot be created or opened.
    """
    return Store(path, migrations=MIGRATIONS, setup=archive.ensure_fts)


class SettingsTable:
    """The ``settings`` table (``key``, ``value`` as JSON) of a store: what :class:`engine.settings.StoredSettings`
    reads and writes."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def setting_rows(self) -> dict[str, str]:
        with self._store.read() as conn:
            return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM settings")}

    def save_setting_rows(self, rows: dict[str, str]) -> None:
        with self._store.write() as conn:
            for key, value in rows.items():
                conn.execute(
                    "INSERT INTO settings(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )


def peek_setting_rows(path: Path) -> dict[str, str]:
    """The ``settings`` rows of the database at ``path``, read-only, without migrating or checking it.

    For a program's start, before the memory is opened: a missing, unreadable or older database gives no
    rows (the defaults).
    """
    if not path.exists():
        return {}
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1.0)
        try:
            return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM settings")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        log.info("the settings could not be read early from %s: %s", path, exc)
        return {}
