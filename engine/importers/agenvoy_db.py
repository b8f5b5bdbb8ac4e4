"""Agenvoy's own archive, ``.store/history.db``: every message it ever stored, also those compacted away.

The table is ``messages(id, session_id, send_at, role, content[, sender])``: ``send_at`` is Unix ns, the
``sender`` column exists only in newer versions (it is read when ``PRAGMA table_info`` lists it). The file
is opened read-only (``mode=ro``): importing never writes the user's database. A database in WAL mode that
no program has open (no ``-wal`` file beside it) is opened as immutable, because a read-only connection
would otherwise leave new ``-wal`` and ``-shm`` files beside it. Older versions wrote the
text with its header still in it and computed ``send_at`` from that header, or, when there was none, made
it 1 ns after the previous row (0 for the first); such made-up times are marked unreliable, so that the
header's time (or the history.json record's) is preferred.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger("memtray.import")

CHAIN_NS = 1000
"""A row less than this many ns after the previous one got a made-up time (previous + 1 ns)."""
MIN_REAL_NS = 10**17
"""Below this (1973 in ns) a ``send_at`` is a chain that started at 0, not a time."""


COLUMNS = frozenset({"session_id", "send_at", "role", "content"})


class UnreadableDatabase(Exception):
    """history.db exists but cannot be read as Agenvoy's archive."""


@dataclass(frozen=True)
class Row:
    """One archived message as stored: ``send_at`` is 0 when the stored time was made up."""

    role: str
    content: str
    send_at: int
    sender: str


def connect_read_only(db: Path) -> sqlite3.Connection:
    """A read-only connection to ``db`` that creates no file beside it.

    Raises:
        sqlite3.Error, OSError: it cannot be opened.
    """
    with db.open("rb") as handle:
        header = handle.read(20)
    wal_mode = len(header) == 20 and header[18] == 2 and header[19] == 2
    unused = not Path(f"{db}-wal").exists()
    options = "mode=ro&immutable=1" if wal_mode and unused else "mode=ro"
    return sqlite3.connect(f"file:{quote(str(db))}?{options}", uri=True)


def is_archive(db: Path) -> bool:
    """True for an SQLite file with a ``messages(session_id, send_at, role, content)`` table."""
    try:
        conn = connect_read_only(db)
    except (sqlite3.Error, OSError):
        return False
    try:
        return {row[1] for row in conn.execute("PRAGMA table_info(messages)")} >= COLUMNS
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def read_rows(db: Path, only: str | None = None) -> dict[str, list[Row]]:
    """Every session's rows in the order Agenvoy stored them (``only``: just that session).

    Raises:
        UnreadableDatabase: the file is not an SQLite database with Agenvoy's ``messages`` table.
    """
    try:
        conn = connect_read_only(db)
    except (sqlite3.Error, OSError) as exc:
        raise UnreadableDatabase(f"cannot open it ({exc})") from exc
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
        if not columns >= COLUMNS:
            raise UnreadableDatabase("it has no messages(session_id, send_at, role, content) table")
        sender = "sender" if "sender" in columns else "''"
        query = f"SELECT session_id, send_at, role, content, {sender} FROM messages"
        params: tuple[str, ...] = ()
        if only is not None:
            query += " WHERE session_id = ?"
            params = (only,)
        rows: dict[str, list[Row]] = {}
        last: dict[str, int] = {}
        for session, send_at, role, content, who in conn.execute(query + " ORDER BY id", params):
            if not isinstance(session, str) or not isinstance(content, str) or not isinstance(role, str):
                continue
            stored = send_at if isinstance(send_at, int) else 0
            made_up = stored < MIN_REAL_NS or 0 < stored - last.get(session, -CHAIN_NS) < CHAIN_NS
            last[session] = stored
            rows.setdefault(session, []).append(
                Row(role, content, 0 if made_up else stored, who if isinstance(who, str) else "")
            )
        return rows
    except sqlite3.Error as exc:
        raise UnreadableDatabase(f"cannot read it ({exc})") from exc
    finally:
        conn.close()
