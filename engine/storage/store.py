"""The SQLite database: connections, transactions, feature probing and error translation.

One file, ``<home>/.store/history.db``, in WAL mode. Writers open ``BEGIN IMMEDIATE`` transactions so two
processes (the tray app and a CLI) queue on the write lock for up to the busy timeout instead of failing
on a lock upgrade; readers see a consistent snapshot. SQLite's own errors become :mod:`engine.errors`.

The database file is created owner-only (0600) before SQLite opens it; SQLite gives its -wal and -shm
files the database's mode. ``secure_delete`` is on, so a deleted message's text is overwritten, and
:meth:`Store.scrub` merges the FTS indexes and truncates the WAL after a message is forgotten. A database
that fails its check at open raises :class:`CorruptStore`; ``memtray repair`` (:mod:`engine.sessions.repair`) moves
it aside and rebuilds it.

The store makes no table of its own: whoever opens it passes the migrations to apply and the setup to run
after them (:func:`engine.database.open_store` passes every part's).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError

from engine.errors import CorruptStore, StorageError, StoreLocked
from engine.storage import fts
from engine.storage.migrations import Migration
from engine.storage.migrations import apply as apply_migrations

log = logging.getLogger("memtray.store")

BUSY_TIMEOUT_MS = 30_000
REPAIR_HINT = "run 'memtray repair' to move it aside and rebuild it from the sessions' history files"

Setup = Callable[[Connection, set[str]], Iterable[str]]
"""Run after the migrations, in their transaction, with the tokenizers this SQLite supports (see
:attr:`Features.tokenizers`); returns the FTS tables that exist, which :meth:`Store.scrub` optimizes."""


@dataclass(frozen=True)
class Features:
    """What the local SQLite supports, probed at start."""

    sqlite_version: str
    fts5: bool
    trigram: bool

    @property
    def tokenizers(self) -> set[str]:
        found = set()
        if self.fts5:
            found.add("unicode61")
        if self.trigram:
            found.add("trigram")
        return found


def probe_features() -> Features:
    """Create throwaway FTS5 tables in memory to learn what this SQLite can do."""
    probe = sqlite3.connect(":memory:")
    try:
        fts5 = _try(probe, "CREATE VIRTUAL TABLE p1 USING fts5(x, tokenize='unicode61 remove_diacritics 2')")
        trigram = fts5 and _try(probe, "CREATE VIRTUAL TABLE p2 USING fts5(x, tokenize='trigram')")
    finally:
        probe.close()
    return Features(sqlite3.sqlite_version, fts5, trigram)


def _try(conn: sqlite3.Connection, sql: str) -> bool:
    try:
        conn.execute(sql)
    except sqlite3.OperationalError:
        return False
    return True


@contextmanager
def translated_errors() -> Iterator[None]:
    """Turn SQLite's exceptions into the engine's error tree."""
    try:
        yield
    except DBAPIError as exc:
        raise _translate(exc.orig) from exc
    except sqlite3.Error as exc:
        raise _translate(exc) from exc


def _translate(exc: BaseException | None) -> StorageError:
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return StoreLocked("the memory store is busy in another program; try again in a moment")
    if "not a database" in message or "malformed" in message or "corrupt" in message:
        return CorruptStore(f"the memory database is damaged ({exc}); {REPAIR_HINT}")
    if "full" in message:
        return StorageError("the disk is full: memtray could not save")
    if "readonly" in message or "read-only" in message or "permission" in message:
        return StorageError(f"memtray may not write its database ({exc})")
    return StorageError(f"the memory database failed: {exc}")


def _make_engine(path: Path, begin: str) -> Engine:
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        pool_size=4,
        max_overflow=8,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA temp_store=MEMORY")
        cursor.execute("PRAGMA cache_size=-32000")  # 32 MB: FTS5 merges and large sessions
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql(begin)

    return engine


class Store:
    """The open database: a write engine and a read engine over the same file.

    :meth:`data_version` answers "did anyone commit since I last asked?" for a few microseconds: SQLite's
    ``PRAGMA data_version`` on a connection of its own that never writes, so every commit, by another
    process or by this one's own engines, changes it.
    """

    def __init__(self, path: Path, *, migrations: Sequence[Migration], setup: Setup | None = None) -> None:
        """Open (creating if needed) the database at ``path``, apply ``migrations``, run ``setup``.

        Raises:
            CorruptStore: the database fails its check.
            StorageError: it cannot be created or opened.
        """
        self.path = path
        self._watch: sqlite3.Connection | None = None  # see data_version
        self._watch_lock = threading.Lock()
        make_private_file(path)
        self.features = probe_features()
        if not self.features.fts5:
            log.warning(
                "SQLite %s has no FTS5: keyword search falls back to slow substring matching",
                self.features.sqlite_version,
            )
        elif not self.features.trigram:
            log.warning(
                "SQLite %s has no trigram tokenizer: Chinese search uses substring matching",
                self.features.sqlite_version,
            )
        with translated_errors():
            self._write = _make_engine(path, "BEGIN IMMEDIATE")
            self._read = _make_engine(path, "BEGIN")
            with self.write() as conn:
                applied = apply_migrations(conn, migrations)
                self.fts_tables = set(setup(conn, self.features.tokenizers)) if setup else set()
                check = conn.exec_driver_sql("PRAGMA quick_check").scalar()
        if check != "ok":
            self.close()
            raise CorruptStore(f"the memory database is damaged (its check says: {check}); {REPAIR_HINT}")
        if applied:
            log.info("database %s migrated: %s", path, ", ".join(applied))

    def data_version(self) -> int:
        """A number that changes whenever a transaction was committed to the database since the last call."""
        with self._watch_lock, translated_errors():
            if self._watch is None:
                self._watch = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            return int(self._watch.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE``), committed when the block ends without error."""
        with translated_errors(), self._write.begin() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only snapshot."""
        with translated_errors(), self._read.connect() as conn:
            yield conn

    def scrub(self) -> None:
        """After a deletion: merge the FTS indexes (no old segment keeps deleted words), truncate the WAL."""
        with self.write() as conn:
            for table in sorted(self.fts_tables):
                fts.optimize(conn, table)
        with translated_errors():
            raw = self._write.raw_connection()  # outside any transaction: a checkpoint cannot run in one
            try:
                raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
            finally:
                raw.close()

    def close(self) -> None:
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        self._write.dispose()
        self._read.dispose()


def peek_setting_rows(path: Path) -> dict[str, str]:
    """The ``settings`` rows of the database at ``path``, read-only and without migrating or checking it.

    For a program's start, before the memory is opened: a missing, unreadable or older database gives
    no rows (the defaults).
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


def make_private_file(path: Path) -> None:
    """Create ``path`` empty and owner-only if it is missing; make the database's files owner-only."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        if os.name == "posix":
            for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
                candidate = path.with_name(name)
                if candidate.exists() and candidate.stat().st_mode & 0o077:
                    os.chmod(candidate, 0o600)
    except OSError as exc:
        raise StorageError(f"memtray cannot create its database {path} ({exc.strerror or exc})") from exc
