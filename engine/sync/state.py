"""This device's sync bookkeeping in its database: settings of the sync (``sync_state``), the applied
cursor of each other device and the title clocks (:mod:`engine.sync.tables`).

Functions take an open connection so the caller decides the transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from engine.sessions import titles
from engine.storage.sql import Connection

FOLDER, NAME, NEXT_SEQ, EXPORTED_ID, EXPORTED_CHANGE, FOLDER_ID = (
    "folder",
    "name",
    "next_seq",
    "exported_id",
    "exported_change",
    "folder_id",
)
LAST_SYNC, LAST_ERROR = "last_sync", "last_error"
"""When ``sync now`` last finished (Unix ns), and why the last one failed ("" when it did not)."""
WATCH_ERROR = "watch_error"
"""Why the tray app or ``memtray daemon`` could not watch the folder ("" when it could)."""


def get(conn: Connection, key: str, default: str = "") -> str:
    row = conn.execute("SELECT value FROM sync_state WHERE key = ?", (key,)).first()
    return default if row is None else str(row[0])


def get_int(conn: Connection, key: str) -> int:
    return int(get(conn, key, "0") or 0)


def put(conn: Connection, key: str, value: str | int) -> None:
    conn.execute(
        "INSERT INTO sync_state(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, str(value)),
    )


def applied(conn: Connection) -> dict[str, int]:
    """The last segment applied of each other device."""
    return {str(d): int(s) for d, s in conn.execute("SELECT device, seq FROM sync_applied")}


def applied_times(conn: Connection) -> dict[str, int]:
    """When a segment of each other device was last applied here (Unix ns)."""
    return {str(d): int(t) for d, t in conn.execute("SELECT device, applied_at FROM sync_applied")}


def set_applied(conn: Connection, device: str, seq: int, now: int) -> None:
    conn.execute(
        "INSERT INTO sync_applied(device, seq, applied_at) VALUES (?, ?, ?) "
        "ON CONFLICT(device) DO UPDATE SET seq = excluded.seq, applied_at = excluded.applied_at",
        (device, seq, now),
    )


def title_key(title: str, source: str = titles.USER) -> str:
    """A digest of a title and its kind (an imported title and the same text given by the user differ)."""
    kind = titles.IMPORTED + "\0" if title and source == titles.IMPORTED else ""
    return hashlib.blake2b(
        (kind + title).encode("utf-8", "surrogatepass"), digest_size=16, person=b"memtray-title"
    ).hexdigest()


def title_clock(conn: Connection, session: str) -> tuple[int, str, str] | None:
    """The title change in force for a session: (time, device, title digest)."""
    row = conn.execute(
        "SELECT at, device, title_key FROM sync_titles WHERE session_id = ?", (session,)
    ).first()
    return None if row is None else (int(row[0]), str(row[1]), str(row[2]))


def set_title_clock(
    conn: Connection, session: str, at: int, device: str, title: str, source: str = titles.USER
) -> None:
    conn.execute(
        "INSERT INTO sync_titles(session_id, at, device, title_key) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET at = excluded.at, device = excluded.device, "
        "title_key = excluded.title_key",
        (session, at, device, title_key(title, source)),
    )


UNORDERED = "unordered"


def unordered(conn: Connection) -> set[str]:
    """Sessions that got messages and are not yet put in time order."""
    return set(json.loads(get(conn, UNORDERED, "[]") or "[]"))


def add_unordered(conn: Connection, sessions: Iterable[str]) -> None:
    todo = unordered(conn) | set(sessions)
    put(conn, UNORDERED, json.dumps(sorted(todo), ensure_ascii=False))


def drop_unordered(conn: Connection, sessions: Iterable[str]) -> None:
    todo = unordered(conn) - set(sessions)
    put(conn, UNORDERED, json.dumps(sorted(todo), ensure_ascii=False))


def clear(conn: Connection) -> None:
    """Forget the folder and every cursor (``sync disable``); the tombstones stay
    (:mod:`engine.sessions.tombstones`)."""
    for table in ("sync_state", "sync_applied", "sync_titles", "sync_received"):
        conn.execute(f"DELETE FROM {table}")
