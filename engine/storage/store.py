"""The SQLite database: connections, transactions, feature probing and error translation.

One file, ``<home>/.store/history.db``, in WAL mode. Writers open ``BEGIN IMMEDIATE`` transactions so two
processes (the tray app and a CLI) queue on the write lock for up to the busy timeout instead of failing
on a lock upgrade; readers see a consistent snapshot and never wait for a writer. Opening takes the write
lock only when there is something to migrate or set up (:meth:`Store.write_if_needed`), so a reading
command never waits behind another program's write. SQLite's own errors become :mod:`engine.errors`.

The database file is created owner-only (0600) before SQLite opens it; SQLite gives its -wal and -shm
files the database's mode. ``secure_delete`` is on, so a deleted row's text is overwritten (free pages included), and
:meth:`Store.scrub` merges every FTS5 index (a deleted row's words stay in old index segments until a
merge) and truncates the WAL after messages are forgotten, reset or removed. Damage raises
:class:`CorruptStore` where it is found: at open when the file or its schema cannot be read, or by the
statement that meets it; the full check (:meth:`Store.check`) is not part of an open
(:mod:`engine.storage.integrity` says when it runs). ``memtray repair`` (:mod:`engine.repair.rebuild`)
moves a damaged database aside and rebuilds it.

Connections are plain ``sqlite3`` ones, pooled here and handed out as :class:`engine.storage.sql.Connection`
inside a transaction; this module is the only one that opens the database for the engine.

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
from typing import TypeVar
from urllib.parse import quote

from engine.errors import CorruptStore, MemoryClosed, StorageError, StoreLocked
from engine.storage import diskerrors, fts
from engine.storage.integrity import header_fault
from engine.storage.migrations import Migration
from engine.storage.migrations import apply as apply_migrations
from engine.storage.sql import Connection, readable_errors

log = logging.getLogger("memtray.store")

T = TypeVar("T")

BUSY_TIMEOUT_MS = 30_000
REPAIR_HINT = "run 'memtray repair' to move it aside and rebuild it from the sessions' history files"
DAMAGED = ("not a database", "malformed", "corrupt", "could not decode")
"""Words of SQLite's errors that mean a damaged file (the last: garbled text)."""

Setup = Callable[[Connection, set[str]], Iterable[str]]
"""Run after the migrations, in their transaction, with the tokenizers this SQLite supports (see
:attr:`Features.tokenizers`); returns the archive's FTS tables that exist (the ones keyword search uses)."""


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
def translated_errors(folder: Path | None = None) -> Iterator[None]:
    """Turn SQLite's exceptions into the engine's error tree (``folder``: the database's, to say what is
    wrong with it when SQLite only says "disk I/O error" or "readonly")."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _translate(exc, folder) from exc


def _translate(exc: BaseException | None, folder: Path | None = None) -> StorageError:
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return StoreLocked("the memory store is busy in another program; try again in a moment")
    if any(word in message for word in DAMAGED):
        return CorruptStore(f"the memory database is damaged ({exc}); {REPAIR_HINT}")
    if "full" in message:
        return diskerrors.disk_full("the memory database")
    environment = ("readonly", "read-only", "permission", "disk i/o", "unable to open")
    if folder is not None and any(word in message for word in environment):
        fault = diskerrors.folder_fault(folder, "the memory database")
        if fault is not None:
            return fault
    if "readonly" in message or "read-only" in message or "permission" in message:
        return StorageError(
            f"memtray may not write its database ({exc}); check the permissions of its folder or "
            f"{diskerrors.CHOOSE_HOME}"
        )
    return StorageError(f"the memory database failed: {exc}")


def _connect(path: Path, *, frozen: bool = False) -> sqlite3.Connection:
    """A connection to ``path`` set up for the store; ``frozen``: read-only, the file taken as it is (no
    -wal or -shm file)."""
    if frozen:
        raw = sqlite3.connect(
            f"file:{quote(str(path))}?immutable=1",
            uri=True,
            check_same_thread=False,
            isolation_level=None,  # the store issues BEGIN itself
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
    else:
        raw = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
        )
    try:
        for pragma in (
            f"busy_timeout={BUSY_TIMEOUT_MS}",
            "journal_mode=WAL",
            "synchronous=NORMAL",
            "foreign_keys=ON",
            "temp_store=MEMORY",
            "cache_size=-32000",  # 32 MB: FTS5 merges and large sessions
            "secure_delete=ON",
        ):
            raw.execute(f"PRAGMA {pragma}")
    except BaseException:
        raw.close()
        raise
    return raw


class _Pool:
    """Connections to one file, each set up once and lent to one thread at a time; up to ``KEEP`` idle
    ones are kept for the next transaction."""

    KEEP = 4

    def __init__(self, path: Path, *, frozen: bool = False) -> None:
        self._path, self._frozen = path, frozen
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def take(self) -> sqlite3.Connection:
        """A connection; after :meth:`close`, none: a late caller must not open the file again (a repair may
        have moved it aside and put a new one in its place)."""
        with self._lock:
            if self._closed:
                raise MemoryClosed(f"the database {self._path.name} was closed in this program")
            if self._idle:
                return self._idle.pop()
        with readable_errors():  # the first statement reads the schema
            return _connect(self._path, frozen=self._frozen)

    def give(self, raw: sqlite3.Connection) -> None:
        """Take back a connection outside any transaction (else it is closed)."""
        with self._lock:
            if not self._closed and len(self._idle) < self.KEEP and not raw.in_transaction:
                self._idle.append(raw)
                return
        raw.close()

    @contextmanager
    def transaction(self, begin: str) -> Iterator[Connection]:
        """``begin`` (``BEGIN`` or ``BEGIN IMMEDIATE``), committed when the block ends without error, else
        rolled back."""
        raw = self.take()
        try:
            raw.execute(begin)
            try:
                yield Connection(raw)
            except BaseException:
                if raw.in_transaction:
                    raw.rollback()
                raise
            if raw.in_transaction:
                raw.commit()
        except BaseException:
            _close_after_failure(raw)
            raise
        self.give(raw)

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read transaction, rolled back when the block ends."""
        raw = self.take()
        try:
            raw.execute("BEGIN")
            try:
                yield Connection(raw)
            finally:
                if raw.in_transaction:
                    raw.rollback()
        except BaseException:
            _close_after_failure(raw)
            raise
        self.give(raw)

    def drain(self) -> None:
        """Close the idle connections (the next transaction opens one anew)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for raw in idle:
            raw.close()

    def close(self) -> None:
        """No more connections: the idle ones are closed, one lent out when it is given back."""
        with self._lock:
            self._closed = True
        self.drain()


def _close_after_failure(raw: sqlite3.Connection) -> None:
    """Close a connection whose transaction failed (its state is not trusted for the next one)."""
    try:
        if raw.in_transaction:
            raw.rollback()
    except sqlite3.Error:
        pass
    raw.close()


class Store:
    """The open database: a pool of write connections and one of read connections over the same file.

    :meth:`data_version` answers "did anyone commit since I last asked?" for a few microseconds: SQLite's
    ``PRAGMA data_version`` on a connection of its own that never writes, so every commit, by another
    process or by this one's own connections, changes it.
    """

    def __init__(self, path: Path, *, migrations: Sequence[Migration], setup: Setup | None = None) -> None:
        """Open (creating if needed) the database at ``path``, apply ``migrations``, run ``setup``.

        Only what every open reads is checked: the file's header (a database shorter than its header says
        gets the full check now) and the schema. Damage found later, by any statement, raises
        :class:`CorruptStore` then; :meth:`check` runs the full check.

        Raises:
            CorruptStore: the database is damaged.
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
        self._write = _Pool(path)
        self._read = _Pool(path)

        def prepare(conn: Connection) -> tuple[list[str], set[str]]:
            applied = apply_migrations(conn, migrations)
            tables = set(setup(conn, self.features.tokenizers)) if setup else set()
            return applied, tables

        try:
            suspect = header_fault(path)
            if suspect:
                log.info("%s may be damaged (%s): checking it in full", path, suspect)
                self.check()
            try:
                applied, self.fts_tables = self.write_if_needed(prepare)
            except StorageError as exc:
                if not _cannot_start_wal(exc, path):
                    raise
                # A full disk with no -wal file: SQLite cannot create the shared-memory file that WAL mode
                # needs, even to read. Every change is in the database file, so it is read as it is.
                log.info(
                    "the disk is full or failing (%s): %s is read as it is; nothing can be saved", exc, path
                )
                self._read.close()
                self._read = _Pool(path, frozen=True)
                applied, self.fts_tables = self.write_if_needed(prepare)
        except BaseException:
            self.close()
            raise
        if applied:
            log.info("database %s migrated: %s", path, ", ".join(applied))

    def check(self) -> None:
        """SQLite's full check of every page and index (``PRAGMA quick_check``: seconds on a large archive).

        Raises:
            CorruptStore: the check found damage (its words are in the message).
        """
        with self.read() as conn:
            found = [str(row[0]) for row in conn.execute("PRAGMA quick_check")]
        if found != ["ok"]:
            said = "; ".join(found[:3]) + (f" (and {len(found) - 3} more)" if len(found) > 3 else "")
            raise CorruptStore(f"the memory database is damaged (its check says: {said}); {REPAIR_HINT}")

    def data_version(self) -> int:
        """A number that changes whenever a transaction was committed to the database since the last call."""
        with self._watch_lock, translated_errors(self.path.parent):
            if self._watch is None:
                self._watch = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            return int(self._watch.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE``), committed when the block ends without error."""
        with translated_errors(self.path.parent), self._write.transaction("BEGIN IMMEDIATE") as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only snapshot."""
        with translated_errors(self.path.parent), self._read.snapshot() as conn:
            yield conn

    def write_if_needed(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a transaction that takes the write lock only if ``work`` writes; its result.

        For steps that rarely change anything (the schema at open, purges): with nothing to write, they
        never wait for another program's writer (readers of a WAL database do not). When ``work`` does
        write and SQLite refuses the late lock (another program wrote first, or held the lock past the
        busy timeout), it runs again in a write transaction (``BEGIN IMMEDIATE``).
        """
        try:
            with translated_errors(self.path.parent), self._read.transaction("BEGIN") as conn:
                return work(conn)
        except StoreLocked:
            with self.write() as conn:
                return work(conn)

    def scrub(self, tables: Iterable[str] | None = None) -> None:
        """After a deletion: merge FTS5 indexes into one segment each, then truncate the WAL.

        Args:
            tables: the FTS5 tables the deletion touched; None: every FTS5 table of the database.

        FTS5 keeps a deleted row's words in its old index segments (and a plain FTS table its text in
        the neighbours' rows until they are rewritten): only a merge rewrites them, and ``secure_delete``
        then overwrites the freed pages. The truncated WAL drops the pages written before the deletion.
        Another program reading at that moment can keep the WAL from being truncated; it is truncated by
        the next checkpoint then (logged).
        """
        with self.write() as conn:
            present = fts5_tables(conn)
            for table in present if tables is None else sorted(set(tables) & set(present)):
                fts.optimize(conn, table)
        with translated_errors(self.path.parent):
            raw = self._write.take()  # outside any transaction: a checkpoint cannot run in one
            try:
                busy = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                self._write.give(raw)
        if busy and busy[0]:
            log.info("the write-ahead log could not be truncated now: another program is reading")

    def close(self) -> None:
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        self._write.close()
        self._read.close()


def _cannot_start_wal(exc: StorageError, path: Path) -> bool:
    """``exc`` is a full disk or an I/O error, and no -wal file holds changes the database file lacks."""
    code = getattr(exc.__cause__, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL):
        return False
    wal = path.with_name(f"{path.name}-wal")
    try:
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False


def fts5_tables(conn: Connection) -> list[str]:
    """Every FTS5 table of the database (the archive's, the context index, the error memory's)."""
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'"
    )
    return sorted(str(r[0]) for r in rows)


def make_private_file(path: Path) -> None:
    """Create ``path`` empty and owner-only if it is missing; make the database's files owner-only.

    An existing database that is already private is not touched, so a read-only home gets as far as
    SQLite (which then says what it cannot do).

    Raises:
        StorageError: the folder or the file cannot be made (in words: read-only, permissions, full).
    """
    with diskerrors.file_errors(f"the database {path}"):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        if os.name == "posix":
            for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
                candidate = path.with_name(name)
                if candidate.exists() and candidate.stat().st_mode & 0o077:
                    os.chmod(candidate, 0o600)
