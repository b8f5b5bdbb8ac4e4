"""Recovery of a damaged database (``memtray repair``): move it aside, salvage what reads, rebuild.

memtray never repairs its database silently at open: a damaged file raises
:class:`~engine.errors.CorruptStore` whose message points here. :func:`repair`

1. checks the database (it opens and passes ``PRAGMA quick_check``: nothing to do);
2. moves the damaged file (and its -wal/-shm) aside as ``history.db.corrupt-<time>``, never deleting it;
3. reads back every message and setting that SQLite can still read from it, in id order, until the first
   damaged page;
4. creates a new database with those, then restores each session's hot messages from its history.json:
   a session's history.json becomes the newest part of its archive again.

What cannot come back: archived messages that were compacted out of history.json and sit on damaged pages
(and the vectors, which the semantic tier re-embeds). The report says how many messages came from where.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, text

from engine.clock import Clock, system_clock
from engine.database import open_store
from engine.errors import CorruptStore, InvalidSessionId
from engine.messages import ROLES, Message, from_record
from engine.paths import Paths, validate_session_id
from engine.sessions import archive
from engine.sessions import folders as session_files
from engine.sessions.historyfile import HistoryUnreadable, HotFiles
from engine.storage.diskerrors import file_errors

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
    """

    damaged: bool
    problem: str = ""
    moved_to: Path | None = None
    salvaged: int = 0
    restored: int = 0
    sessions: int = 0
    unreadable: list[str] = field(default_factory=list)


def check(paths: Paths) -> str | None:
    """The damage of the database in words, or None when it opens and passes its check."""
    try:
        open_store(paths.database).close()
    except CorruptStore as exc:
        return str(exc)
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
    rows, settings = _salvage(moved)
    now = clock()
    store = open_store(paths.database)
    try:
        with store.write() as conn:
            for key, value in settings.items():
                conn.execute(
                    text("INSERT OR REPLACE INTO settings(key, value) VALUES (:k, :v)"),
                    {"k": key, "v": value},
                )
            for row in rows:
                assert row.session is not None
                conn.execute(
                    text(
                        "INSERT INTO messages(id, session_id, skey, send_at, role, content, sender) "
                        "VALUES (:i, :s, :k, :t, :r, :c, :n)"
                    ),
                    {
                        "i": row.id,
                        "s": row.session,
                        "k": archive.session_key(conn, row.session, now),
                        "t": row.send_at,
                        "r": row.role,
                        "c": row.content,
                        "n": row.sender,
                    },
                )
            restored, count, unreadable = _restore_hot(conn, paths, now)
    finally:
        store.close()
    report = RepairReport(True, problem, moved, len(rows), restored, count, unreadable)
    log.warning(
        "database rebuilt: %d messages salvaged from the damaged file, %d restored from the history files "
        "of %d sessions",
        report.salvaged,
        report.restored,
        report.sessions,
    )
    return report


def _salvage(path: Path) -> tuple[list[Message], dict[str, str]]:
    """The messages (id order) and settings SQLite can still read from a damaged file."""
    rows: list[Message] = []
    settings: dict[str, str] = {}
    try:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        log.warning("nothing could be read from the damaged database: %s", exc)
        return rows, settings
    try:
        try:
            settings = {str(k): str(v) for k, v in source.execute("SELECT key, value FROM settings")}
        except sqlite3.Error as exc:
            log.warning("the settings could not be read from the damaged database: %s", exc)
        last = 0
        while True:
            try:
                batch = source.execute(
                    "SELECT id, session_id, role, content, send_at, sender FROM messages WHERE id > ? "
                    "ORDER BY id LIMIT 1000",
                    (last,),
                ).fetchall()
            except sqlite3.Error as exc:
                log.warning("salvage stopped after message #%d: %s", last, exc)
                break
            if not batch:
                break
            for ident, session, role, content, send_at, sender in batch:
                last = int(ident)
                if (
                    isinstance(session, str)
                    and role in ROLES
                    and isinstance(content, str)
                    and content.strip()
                ):
                    try:
                        validate_session_id(session)
                    except InvalidSessionId:  # read from a damaged page
                        continue
                    when = send_at if isinstance(send_at, int) and send_at >= 0 else 0
                    rows.append(
                        Message(role, content, when, sender if isinstance(sender, str) else "", last, session)
                    )
    finally:
        source.close()
    return rows, settings


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
        hot = [m for m in (from_record(r) for r in records) if m is not None and m.content.strip()]
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
                    conn.execute(text("DELETE FROM messages WHERE id = :i"), {"i": message.id})
            ids = [i for i in archive.insert(conn, session, hot, now) if i is not None]
            added += len(ids)
            first, last = ids[0], ids[-1]
        start_at = next((m.send_at for m in hot if m.send_at), 0)
        archive.save_meta(conn, session, archive.Meta(start_at, first, last))
    return added, count, unreadable
