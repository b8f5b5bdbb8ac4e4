"""Recovery of a damaged database (``memtray repair``): move it aside, salvage what reads, rebuild.

memtray never repairs its database silently at open: a damaged file raises
:class:`~engine.errors.CorruptStore` whose message points here. :func:`repair`

1. checks the database (it opens, passes ``PRAGMA quick_check`` and its messages' text decodes: nothing
   to do);
2. moves the damaged file (and its -wal/-shm) aside as ``history.db.corrupt-<time>``, never deleting it;
3. reads back every message, setting and error-memory record that SQLite can still read from it, row by
   row around the damaged pages (:mod:`engine.repair.salvage`);
4. creates a new database with those, then restores each session's hot messages from its history.json:
   a session's history.json becomes the newest part of its archive again.

What cannot come back: archived messages that were compacted out of history.json and sit on damaged pages
(and the vectors, which the semantic tier re-embeds). The report says how many messages came from where,
and how many of how many archived messages were read back.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.cjk import cjk_bigrams
from engine.clock import Clock, system_clock
from engine.database import open_store
from engine.errors import CorruptStore, InvalidSessionId
from engine.messages import ROLES, Message, from_record
from engine.paths import Paths, validate_session_id
from engine.repair import salvage
from engine.sessions import archive
from engine.sessions import folders as session_files
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.storage.diskerrors import file_errors
from engine.storage.sql import SQLITE_FAILURES, Connection

log = logging.getLogger("memtray.repair")

_SIDECARS = ("-wal", "-shm", "-journal")


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

    @property
    def lost(self) -> int:
        """Archived messages of the damaged file that were not read back (at most, if not exact)."""
        return max(0, self.expected - self.salvaged)


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

    Close other memtray programs (the tray app) first: they hold the old file open.

    Raises:
        StorageError: the files cannot be moved or written (a full disk, permissions).
    """
    problem = check(paths)
    if problem is None:
        return RepairReport(damaged=False)
    moved = paths.database.with_name(f"{paths.database.name}.corrupt-{clock()}")
    with file_errors("the damaged database"):
        paths.database.replace(moved)
        for suffix in _SIDECARS:
            side = paths.database.with_name(paths.database.name + suffix)
            if side.exists():
                side.replace(moved.with_name(moved.name + suffix))
    log.warning("the damaged database was moved aside to %s (%s)", moved.name, problem)
    now = clock()
    store = open_store(paths.database)
    try:
        with store.read() as conn:
            error_columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(error_memory)")]
        found = _salvage(moved, error_columns)
        with store.write() as conn:
            for key, value in found.settings.items():
                conn.execute(
                    "INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)",
                    (key, value),
                )
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
                        "INSERT INTO messages_cjk(id, skey, grams) VALUES (?, ?, ?)",
                        (row.id, key, grams),
                    )
            errors = _insert_error_records(conn, error_columns, found.error_rows)
            restored, count, unreadable = _restore_hot(conn, paths, now)
    finally:
        store.close()
    report = RepairReport(
        True,
        problem,
        moved,
        len(found.messages),
        restored,
        count,
        unreadable,
        expected=found.expected,
        expected_exact=found.exact,
        settings=len(found.settings),
        error_records=errors,
    )
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


@dataclass(frozen=True)
class _Found:
    messages: list[Message]
    expected: int
    exact: bool
    settings: dict[str, str]
    error_rows: list[tuple[salvage.Value, ...]]


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
        return _Found([], 0, False, {}, [])
    try:
        read = salvage.read_table(source, "messages", ("session_id", "role", "content", "send_at", "sender"))
        messages = [m for m in (_message(row) for row in read.rows) if m is not None]
        settings = {
            str(k): str(v)
            for _, k, v in _table(source, "settings", ("key", "value"))
            if isinstance(k, str) and isinstance(v, str)
        }
        errors = _table(source, "error_memory", error_columns) if error_columns else []
    finally:
        source.close()
    return _Found(messages, read.expected, read.exact, settings, errors)


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


def _restore_hot(conn: Connection, paths: Paths, now: int) -> tuple[int, int, list[str]]:
    """Make each session's history.json the newest part of its archive again; (added, sessions, unreadable)."""
    files = HotFiles(paths.store_dir / "tmp")
    added = count = 0
    unreadable: list[str] = []
    for session in session_files.session_ids(paths):
        if session_files.is_private(session):
            continue
        try:
            records = files.read(paths.history_file(session))
        except HistoryUnreadable:
            unreadable.append(session)
            continue
        count += 1
        hot = [m for m in (from_record(r) for r in records) if m is not None]
        archived = archive.rows_from(conn, session, 0)
        if not hot:
            if archived:
                last = archived[-1].id or 0
                archive.save_meta(conn, session, archive.Meta(0, last + 1, last))
            continue
        tail = archived[-len(hot) :] if len(archived) >= len(hot) else []
        if [(m.role, m.content) for m in tail] == [(m.role, m.content) for m in hot]:
            first, last = tail[0].id or 0, tail[-1].id or 0
        else:
            # The salvaged archive ends elsewhere: drop its copies of the hot messages, append them anew.
            wanted = {(m.role, m.content) for m in hot}
            for message in archived:
                if (message.role, message.content) in wanted:
                    conn.execute("DELETE FROM messages WHERE id = ?", (message.id,))
            ids = [i for i in archive.insert(conn, session, hot, now) if i is not None]
            added += len(ids)
            first, last = ids[0], ids[-1]
        start_at = next((m.send_at for m in hot if m.send_at), 0)
        archive.save_meta(conn, session, archive.Meta(start_at, first, last))
    return added, count, unreadable
