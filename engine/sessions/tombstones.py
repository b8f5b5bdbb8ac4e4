"""What the memory was told to forget, remembered without the text: tombstones.

A forgotten message leaves a row in ``forgotten``: its session, role, archived time, former id and a
keyed hash of its text (HMAC-SHA256), never the text. The key is the home's own, 32 random bytes in
``<home>/.store/forget.key`` (owner-only), never in the database: the hash of a short text cannot be
reversed by trying every likely text without it. An import (the same export again, a transcript read
again) asks :class:`Buried` first and passes over a message with the same session, role, time and text
hash. history.json is not checked: a forget takes the message out of it before the row leaves the
archive (an interrupted forget is finished from its intent), and a message the user kept that is
identical to the forgotten one must stay. Replays write archive rows only, so they cannot bring a
forgotten message back; a repair copies the tombstones and the intents under way.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from collections.abc import Iterable, Sequence
from pathlib import Path

from engine.messages import Message
from engine.paths import Paths
from engine.storage.atomic import O_BINARY, sync_dir
from engine.storage.diskerrors import file_errors
from engine.storage.sql import Connection

log = logging.getLogger("memtray.forget")

KEY_FILE = "forget.key"
KEY_BYTES = 32
COLUMNS = ("session_id", "role", "send_at", "digest", "message_id", "forgotten_at")

Identity = tuple[str, int, str]
"""``(role, archived time, text hash)`` of a message within its session."""


def key_path(paths: Paths) -> Path:
    return paths.store_dir / KEY_FILE


def load_key(paths: Paths, *, create: bool) -> bytes | None:
    """The home's tombstone key; made (durably, once, whoever races) when ``create``, else None if none."""
    path = key_path(paths)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    if len(data) == KEY_BYTES:
        return data
    if not create:
        return None
    with file_errors("the forget key"):
        tmp = path.with_name(f".{KEY_FILE}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            if data:  # a short file: damaged, replaced (the tombstones made with it are lost anyway)
                os.replace(tmp, path)
            else:
                os.link(tmp, path)  # fails if another program made it first: theirs is used
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        sync_dir(path.parent)
        return path.read_bytes()


def digest(key: bytes, text: str) -> str:
    """The keyed hash of a message's text."""
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def bury(conn: Connection, key: bytes, message: Message, now: int) -> None:
    """Remember ``message`` (archived, with its id and session) as forgotten, in the caller's transaction."""
    assert message.session is not None
    conn.execute(
        "INSERT INTO forgotten(session_id, role, send_at, digest, message_id, forgotten_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (message.session, message.role, message.send_at, digest(key, message.content), message.id or 0, now),
    )


def was_forgotten(conn: Connection, message_id: int) -> str | None:
    """The session of the message ``message_id`` if it was forgotten, else None."""
    row = conn.execute("SELECT session_id FROM forgotten WHERE message_id = ? LIMIT 1", (message_id,)).first()
    return None if row is None else str(row[0])


def session_forgotten(conn: Connection, session: str) -> bool:
    """Whether messages of ``session`` were forgotten."""
    return (
        conn.execute("SELECT 1 FROM forgotten WHERE session_id = ? LIMIT 1", (session,)).first() is not None
    )


def copy_rows(conn: Connection, rows: Iterable[Sequence[object]]) -> int:
    """Insert tombstone rows read back from a damaged database (``(rowid, *COLUMNS)``); return how many."""
    count = 0
    for row in rows:
        values = tuple(row[1:])
        if len(values) != len(COLUMNS) or not all(
            isinstance(v, str) for v in (values[0], values[1], values[3])
        ):
            continue
        conn.execute(f"INSERT INTO forgotten({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)", values)
        count += 1
    return count


class Buried:
    """Asks whether a message is a forgotten one: ``buried(session, message, archived_time)``.

    Reads a session's tombstones once (nothing, and no key, for a session that has none).
    """

    def __init__(self, paths: Paths, conn: Connection) -> None:
        self._paths = paths
        self._conn = conn
        self._key: bytes | None = None
        self._sessions: dict[str, set[Identity]] = {}

    def __call__(self, session: str, message: Message, archived_time: int) -> bool:
        found = self._sessions.get(session)
        if found is None:
            found = self._sessions[session] = self._read(session)
        if not found:
            return False
        if self._key is None:
            self._key = load_key(self._paths, create=False)
            if self._key is None:
                log.warning("the forget key of this home is missing: forgotten messages cannot be recognized")
                self._sessions = {s: set() for s in self._sessions}
                return False
        return (message.role, archived_time, digest(self._key, message.content)) in found

    def _read(self, session: str) -> set[Identity]:
        rows = self._conn.execute(
            "SELECT role, send_at, digest FROM forgotten WHERE session_id = ?", (session,)
        )
        return {(str(r), int(t), str(d)) for r, t, d in rows}
