"""Recovery of a damaged database (``memtray repair``): move it aside, salvage what reads, rebuild.

memtray never repairs its database silently at open: a damaged file raises
:class:`~engine.errors.CorruptStore` whose message points here. :func:`repair` runs alone: it refuses
(:class:`~engine.errors.MemoryInUse`) while another program holds the memory, and no program opens it
meanwhile (:mod:`engine.storage.holders`), so no acknowledged write lands in the file it moves. It

1. checks the database (it opens, passes ``PRAGMA quick_check`` and its messages' text decodes: nothing
   to do);
2. writes its journal (:mod:`engine.repair.journal`), synced, before anything moves;
3. moves the damaged file (and its -wal/-shm) aside as ``history.db.corrupt-<time>``, never deleting it;
4. reads back every message, setting, error-memory record and forget record (tombstone) that SQLite can
   still read from it, row by row around the damaged pages (:mod:`engine.repair.salvage`), into a new
   database built beside it (``history.db.rebuild``); then restores each session's hot messages from its
   history.json, matched to the salvaged rows by identity (:mod:`engine.repair.hotrestore`), so a
   session's history.json becomes the newest part of its archive again and no salvaged row is dropped;
5. syncs the new database, records that in the journal, renames it into place, deletes the journal.

A repair killed at any step is finished from that step by the next ``memtray repair`` or the next open
of the memory (:func:`finish_interrupted`), and says so: the moved-aside copy is read until the new
database is complete.

What cannot come back: archived messages that were compacted out of history.json and sit on damaged pages
(and the vectors, which the semantic tier re-embeds). The report says how many messages came from where,
and how many of how many archived messages were read back.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.cjk import cjk_bigrams
from engine.clock import Clock, system_clock
from engine.database import open_store
from engine.errors import CorruptStore, InvalidSessionId
from engine.messages import ROLES, Message
from engine.paths import Paths, validate_session_id
from engine.repair import hotrestore, journal, salvage
from engine.sessions import alignment, archive, tombstones
from engine.sessions import folders as session_files
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.storage.atomic import sync_dir
from engine.storage.diskerrors import file_errors
from engine.storage.holders import Holders
from engine.storage.sql import SQLITE_FAILURES, Connection

log = logging.getLogger("memtray.repair")

_SIDECARS = ("-wal", "-shm", "-journal")
REBUILD_SUFFIX = ".rebuild"
"""The new database is built under this name beside the old one, and renamed into place when complete."""


@dataclass(frozen=True)
class RepairReport:
    """What :func:`repair` did.

    Attributes:
        damaged: whether the database was damaged (False: nothing was changed).
        problem: the damage found, in words.
        moved_to: where the damaged file was moved.
        salvaged: messages read back from the damaged file.
        restored: messages taken from history.json files (not in the salvaged part).
        sessions: sessions whose history.json was read.
        unreadable: sessions whose history.json could not be read either.
        expected: archived messages the damaged file held (exact when ``expected_exact``, else its
            largest message id: at most that many).
        expected_exact: whether ``expected`` is the file's own count.
        settings: settings read back.
        error_records: error-memory records read back.
        resumed: an interrupted repair was finished (the figures are its own).
    """

    damaged: bool
    problem: str = ""
    moved_to: Path | None = None
    salvaged: int = 0
    restored: int = 0
    sessions: int = 0
    unreadable: list[str] = field(default_factory=list)
    expected: int = 0
    expected_exact: bool = True
    settings: int = 0
    error_records: int = 0
    resumed: bool = False

    @property
    def lost(self) -> int:
        """Archived messages of the damaged file that were neither read back nor found in a history.json
        (at most, if not exact)."""
        return max(0, self.expected - self.salvaged - self.restored)


def check(paths: Paths) -> str | None:
    """The damage of the database in words, or None when it opens, passes its check and its text reads."""
    try:
        store = open_store(paths.database)
        try:
            store.check()  # the full check: an open alone reads only the header and the schema
        finally:
            store.close()
    except CorruptStore as exc:
        return str(exc)
    return _undecodable(paths.database)


def _undecodable(path: Path) -> str | None:
    """Damage ``quick_check`` does not see: message text that is not UTF-8 (garbled bytes in a cell)."""
    try:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except SQLITE_FAILURES:
        return None
    source.text_factory = bytes
    try:
        for ident, content in source.execute("SELECT id, content FROM messages"):
            if isinstance(content, bytes):
                try:
                    content.decode("utf-8")
                except UnicodeDecodeError:
                    return f"the memory database is damaged (the text of message #{ident} is garbled)"
    except SQLITE_FAILURES as exc:
        return f"the memory database is damaged ({exc})"
    finally:
        source.close()
    return None


def repair(paths: Paths, *, clock: Clock = system_clock) -> RepairReport:
    """Rebuild a damaged database (see the module docstring); do nothing to a healthy one.

    A repair interrupted before (its journal is still there) is finished first, whatever the database's
    state now; the report says so (``resumed``).

    Raises:
        MemoryInUse: another program holds the memory (close it first); nothing was changed.
        StorageError: the files cannot be moved or written (a full disk, permissions).
    """
    with Holders(paths.store_dir).alone("'memtray repair'"):
        pending = journal.read(paths.store_dir)
        if pending is not None:
            return _finish(paths, pending, clock, resumed=True)
        problem = check(paths)
        if problem is None:
            return RepairReport(damaged=False)
        started = journal.Journal(moved=f"{paths.database.name}.corrupt-{clock()}", problem=problem)
        journal.save(paths.store_dir, started)  # durable before anything moves
        return _finish(paths, started, clock, resumed=False)


def finish_interrupted(paths: Paths, *, clock: Clock = system_clock) -> RepairReport | None:
    """Finish a repair that was interrupted (its journal is there), or None when there is none.

    For an open of the memory: the caller holds the holders' gate and no other program holds the memory.
    """
    pending = journal.read(paths.store_dir)
    if pending is None:
        return None
    report = _finish(paths, pending, clock, resumed=True)
    log.warning(
        "an interrupted repair of the memory database was finished: %d archived messages salvaged from %s, "
        "%d restored from history.json",
        report.salvaged,
        pending.moved,
        report.restored,
    )
    return report


def _finish(paths: Paths, job: journal.Journal, clock: Clock, *, resumed: bool) -> RepairReport:
    """Every step of a repair from where ``job`` (its journal) says it is: move the damaged file aside,
    build the new database beside it, sync it, put it in place, delete the journal."""
    moved = paths.store_dir / job.moved
    rebuilt = paths.database.with_name(paths.database.name + REBUILD_SUFFIX)
    with file_errors("the damaged database"):
        if job.report is None:
            _move_aside(paths.database, moved, clock)
        elif not rebuilt.exists() and paths.database.exists():  # put in place before the kill
            journal.remove(paths.store_dir)
            return _report(job, moved, resumed)
    if job.report is None:
        log.warning("the damaged database was moved aside to %s (%s)", moved.name, job.problem)
        found = _build(paths, moved, rebuilt, clock)
        job = journal.Journal(job.moved, job.problem, found)
        journal.save(paths.store_dir, job)  # the new database is complete and synced
    with file_errors("the rebuilt database"):
        rebuilt.replace(paths.database)
        sync_dir(paths.store_dir)
    journal.remove(paths.store_dir)
    report = _report(job, moved, resumed)
    log.warning(
        "database rebuilt: %d of %s%d archived messages salvaged from the damaged file, %d restored from "
        "the history files of %d sessions",
        report.salvaged,
        "" if report.expected_exact else "at most ",
        report.expected,
        report.restored,
        report.sessions,
    )
    return report


def _report(job: journal.Journal, moved: Path, resumed: bool) -> RepairReport:
    done = job.report or {}
    return RepairReport(
        True,
        job.problem,
        moved,
        int(done.get("salvaged", 0)),
        int(done.get("restored", 0)),
        int(done.get("sessions", 0)),
        [str(s) for s in done.get("unreadable", [])],
        expected=int(done.get("expected", 0)),
        expected_exact=bool(done.get("expected_exact", True)),
        settings=int(done.get("settings", 0)),
        error_records=int(done.get("error_records", 0)),
        resumed=resumed,
    )


def _move_aside(database: Path, moved: Path, clock: Clock) -> None:
    """Move the damaged database (its -wal and -shm first, the file itself last) to ``moved``; a step
    done before an interruption is not done again."""
    for suffix in _SIDECARS:
        side = database.with_name(database.name + suffix)
        if side.exists() and not moved.with_name(moved.name + suffix).exists():
            side.replace(moved.with_name(moved.name + suffix))
    if database.exists():
        if moved.exists():  # a file that came after the move: kept aside too, never deleted
            database.replace(database.with_name(f"{database.name}.replaced-{clock()}"))
        else:
            database.replace(moved)
    sync_dir(database.parent)


def _build(paths: Paths, moved: Path, rebuilt: Path, clock: Clock) -> dict[str, object]:
    """Build the new database at ``rebuilt`` from what ``moved`` still holds and the history files, closed
    and synced to disk; return what was read back (the journal keeps it for the report)."""
    for suffix in ("", *_SIDECARS):
        rebuilt.with_name(rebuilt.name + suffix).unlink(missing_ok=True)  # an interrupted try's
    now = clock()
    store = open_store(rebuilt)
    try:
        with store.read() as conn:
            error_columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(error_memory)")]
        found = _salvage(moved, error_columns)
        with store.write() as conn:
            for key, value in found.settings.items():
                conn.execute("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", (key, value))
            kept = tombstones.copy_rows(conn, found.forgotten) + _copy_intents(conn, found.intents)
            for row in found.messages:
                assert row.session is not None
                key = archive.session_key(conn, row.session, now)
                conn.execute(
                    "INSERT INTO messages(id, session_id, skey, send_at, role, content, sender) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row.id, row.session, key, row.send_at, row.role, row.content, row.sender),
                )
                if grams := cjk_bigrams(row.content):  # the two-character index, as an append fills it
                    conn.execute(
                        "INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)", (row.id, key, grams)
                    )
            errors = _insert_error_records(conn, error_columns, found.error_rows)
            restored, count, unreadable = _restore_hot(conn, paths, found.cuts, now)
        log.info("repair: %d forget records read back", kept)
    finally:
        store.close()
    _settle_file(rebuilt)
    return {
        "salvaged": len(found.messages),
        "restored": restored,
        "sessions": count,
        "unreadable": unreadable,
        "expected": found.expected,
        "expected_exact": found.exact,
        "settings": len(found.settings),
        "error_records": errors,
    }


def _settle_file(path: Path) -> None:
    """Fold the new database's write-ahead log into it and sync it to disk (it is renamed next)."""
    with file_errors("the rebuilt database"):
        raw = sqlite3.connect(path)
        try:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()  # the last connection: SQLite deletes the empty -wal
        fd = os.open(path, os.O_RDWR)  # Windows flushes only a file opened for writing
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        for suffix in _SIDECARS:
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        sync_dir(path.parent)


@dataclass(frozen=True)
class _Found:
    messages: list[Message]
    expected: int
    exact: bool
    settings: dict[str, str]
    error_rows: list[tuple[salvage.Value, ...]]
    forgotten: list[tuple[salvage.Value, ...]]
    intents: list[tuple[salvage.Value, ...]]
    cuts: dict[str, int]


def _salvage(path: Path, error_columns: list[str]) -> _Found:
    """The messages (id order), settings and error records SQLite can still read from a damaged file."""
    try:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        # A damaged schema entry (an index's) would stop every statement; with this SQLite skips it
        # (the file is opened read-only, so nothing is written).
        source.execute("PRAGMA writable_schema=ON")
        source.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except SQLITE_FAILURES as exc:
        log.warning("nothing could be read from the damaged database: %s", exc)
        return _Found([], 0, False, {}, [], [], [], {})
    try:
        read = salvage.read_table(source, "messages", ("session_id", "role", "content", "send_at", "sender"))
        messages = [m for m in (_message(row) for row in read.rows) if m is not None]
        settings = {
            str(k): str(v)
            for _, k, v in _table(source, "settings", ("key", "value"))
            if isinstance(k, str) and isinstance(v, str)
        }
        errors = _table(source, "error_memory", error_columns) if error_columns else []
        forgotten = _table(source, "forgotten", tombstones.COLUMNS) or _table(
            source, "forgotten", tombstones.COLUMNS[: tombstones.M014_COLUMNS]
        )  # a database damaged before m015_one_tombstone_table: its tombstones were all the home's
        intents = _table(source, "forget_intents", INTENT_COLUMNS)
        cuts = {
            str(s): int(c)
            for _, s, c in _table(source, "message_meta", ("session_id", "start_id"))
            if isinstance(s, str) and isinstance(c, int)
        }
    finally:
        source.close()
    return _Found(messages, read.expected, read.exact, settings, errors, forgotten, intents, cuts)


def _table(source: sqlite3.Connection, table: str, columns: Sequence[str]) -> list[tuple[salvage.Value, ...]]:
    try:
        return salvage.read_table(source, table, columns).rows
    except SQLITE_FAILURES as exc:  # the table is gone from the damaged schema
        log.warning("the %s could not be read from the damaged database: %s", table, exc)
        return []


def _message(row: tuple[salvage.Value, ...]) -> Message | None:
    """An archived message from a salvaged row, or None when what was read cannot be one."""
    ident, session, role, content, send_at, sender = row
    if not (
        isinstance(ident, int) and isinstance(session, str) and role in ROLES and isinstance(content, str)
    ):
        return None
    try:
        validate_session_id(session)
    except InvalidSessionId:  # read from a damaged page
        return None
    when = send_at if isinstance(send_at, int) and send_at >= 0 else 0
    return Message(str(role), content, when, sender if isinstance(sender, str) else "", ident, session)


def _insert_error_records(conn: Connection, columns: list[str], rows: list[tuple[salvage.Value, ...]]) -> int:
    """Put salvaged error records back (a row the table's constraints refuse is left out)."""
    if not columns:
        return 0
    added = 0
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    for row in rows:
        values = row[1:]  # the rowid is the first column (num) again
        try:
            with conn.begin_nested():
                result = conn.execute(
                    f"INSERT OR IGNORE INTO error_memory({names}) VALUES ({marks})", tuple(values)
                )
        except SQLITE_FAILURES:
            continue
        added += int(result.rowcount or 0)
    return added


INTENT_COLUMNS = ("kind", "session_id", "message_id", "created_at")


def _copy_intents(conn: Connection, rows: list[tuple[salvage.Value, ...]]) -> int:
    """Put back the forgets under way the damaged file still held: the next open finishes them (their
    salvaged rows, back in the archive, are scrubbed then)."""
    count = 0
    for row in rows:
        kind, session, message_id, created = row[1:]
        if isinstance(kind, str) and isinstance(session, str) and isinstance(message_id, int):
            conn.execute(
                "INSERT INTO forget_intents(kind, session_id, message_id, created_at) VALUES (?, ?, ?, ?)",
                (kind, session, message_id, created if isinstance(created, int) else 0),
            )
            count += 1
    return count


def _restore_hot(
    conn: Connection, paths: Paths, cuts: dict[str, int], now: int
) -> tuple[int, int, list[str]]:
    """Make each session's history.json the newest part of its archive again, matching its messages to the
    salvaged rows by identity (:mod:`engine.repair.hotrestore`); (added, sessions, unreadable)."""
    files = HotFiles(paths.store_dir / "tmp")
    added = count = 0
    unreadable: list[str] = []
    used = {int(r[0]) for r in conn.execute("SELECT id FROM messages")}
    for session in session_files.session_ids(paths):
        if session_files.is_private(session):
            continue
        try:
            records = files.read(paths.history_file(session))
        except HistoryUnreadable:
            unreadable.append(session)
            continue
        count += 1
        hot = [m for _, m in alignment.usable(records)]
        placed = hotrestore.restore_session(conn, session, hot, cuts.get(session, 0), used, now)
        added += placed.added
        if placed.meta.hot_last_id or placed.meta.start_id:
            archive.save_meta(conn, session, placed.meta)
    return added, count, unreadable
