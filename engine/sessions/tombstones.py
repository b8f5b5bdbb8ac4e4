"""The one tombstone table: what was forgotten, reset or removed, remembered without the text.

A tombstone is a row of ``forgotten``: the session, role, archived time, former id and a keyed hash
(HMAC-SHA256) of the text, never the text; what made it (``cause``: forget, reset, remove) and whose key
hashed it (``scope``). Every device decides with the same rule: a message whose (session, role, time,
keyed hash) matches a tombstone under any key this device holds is never stored again, by an import (the
same export again, a transcript read again) or by a sync.

The keys (:mod:`engine.sessions.tombkeys`): the home's own (``scope`` ""), outside the database; while
sync is on, the key every device of the sync folder shares (``scope`` = the folder's id); the keys of
folders left. A short text's hash cannot be reversed by trying every likely text without the key, so the
unencrypted database holds nothing a dictionary opens. Each forget, reset or removal writes a tombstone
under the home's key (it holds whatever becomes of the sync), and one under the folder's key when sync is
on (under the keys of the folders left when it is off): that one travels in the (encrypted) segments and
is compared on the other devices.

A tombstone cannot be re-keyed (its text is gone): one made before sync was enabled stays under the
home's key, and the sync re-keys lazily: a message that arrives from another device and matches it is not
stored, and a tombstone under the folder's key is made and sent for it, so the device that still holds the
message scrubs it too (:mod:`engine.sync.apply`). ``~import`` tombstones are the former unkeyed import
keys (``m015_one_tombstone_table``), hashed under the home's key at the first open (:func:`rekey_plain`).

history.json is not checked: a forget takes the message out of it before the row leaves the archive (an
interrupted forget is finished from its intent), and a message the user kept that is identical to the
forgotten one must stay. Replays write archive rows only, so they cannot bring a forgotten message back;
a repair copies the tombstones and the intents under way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.messages import Message
from engine.sessions import identity
from engine.sessions.tombkeys import IMPORTED, LOCAL, Scoped, TombKeys, digest
from engine.storage.sql import Connection

log = logging.getLogger("memtray.forget")

COLUMNS = (
    "session_id",
    "role",
    "send_at",
    "digest",
    "message_id",
    "forgotten_at",
    "scope",
    "cause",
    "synced",
)
M014_COLUMNS = 6
"""How many of :data:`COLUMNS` the table had before ``m015_one_tombstone_table``; a row read from then has
the home's scope, ``forget`` and not synced in the others."""

PLAIN = "~plain"
"""The scope of a former unkeyed import key not hashed yet (``m015_one_tombstone_table`` left it)."""
ERROR = "error"
"""The role of an error-memory record's tombstone (its digest is of the record's duplicate key)."""
FORGET, RESET, REMOVE = "forget", "reset", "remove"

Grave = tuple[str, int, str]
"""``(role, archived time, keyed hash)``: a tombstone within its session, as a sync carries it."""


def _exists(conn: Connection, scope: str, session: str, grave: Grave) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM forgotten WHERE session_id = ? AND digest = ? AND scope = ? AND role = ? "
            "AND send_at = ? LIMIT 1",
            (session, grave[2], scope, grave[0], grave[1]),
        ).first()
        is not None
    )


def add(
    conn: Connection,
    scope: str,
    session: str,
    graves: Iterable[Grave],
    now: int,
    *,
    cause: str = FORGET,
    message_id: int = 0,
    synced: bool = False,
) -> list[Grave]:
    """Record tombstones under ``scope`` (those not there yet), in the caller's transaction; the new ones.
    ``synced``: the sync folder knows them (they arrived), so marks an existing one too."""
    new = []
    for grave in graves:
        if _exists(conn, scope, session, grave):
            if synced:
                conn.execute(
                    "UPDATE forgotten SET synced = 1 WHERE session_id = ? AND digest = ? AND scope = ?",
                    (session, grave[2], scope),
                )
            continue
        conn.execute(
            "INSERT INTO forgotten(session_id, role, send_at, digest, message_id, forgotten_at, scope, cause, "
            "synced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session, grave[0], grave[1], grave[2], message_id, now, scope, cause, int(synced)),
        )
        new.append(grave)
    return new


def grave_of(key: bytes, role: str, send_at: int, text: str) -> Grave:
    return (role, send_at, digest(key, text))


def bury(
    conn: Connection, keys: Sequence[Scoped], message: Message, now: int, cause: str = FORGET
) -> list[Grave]:
    """Remember ``message`` (archived, with its id and session) as gone under every key of ``keys``, in the
    caller's transaction; return its tombstone under the last key (the folder's, when sync is on)."""
    assert message.session is not None
    made: list[Grave] = []
    for scope, key in keys:
        made = [grave_of(key, message.role, message.send_at, message.content)]
        # each forget leaves its own row (its message id says a retried forget is done)
        conn.execute(
            "INSERT INTO forgotten(session_id, role, send_at, digest, message_id, forgotten_at, scope, cause) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (message.session, *made[0], message.id or 0, now, scope, cause),
        )
    return made


def journal(
    conn: Connection, keys: Sequence[Scoped], session: str, rows: Sequence[Message]
) -> dict[str, Any]:
    """What the change journal keeps of deleted messages for a sync to tell the other devices: their
    global ids written on a device (an import's global id is an unkeyed hash of the text: left out), and
    their tombstones under each sync folder's key, by folder id (none without sync). Never the text."""
    gids = identity.gids_of(conn, [m.id for m in rows if m.id is not None])
    return {
        "gids": [g for g in gids.values() if not g.startswith(identity.IMPORT_PREFIX)],
        "graves": {
            scope: [list(grave_of(key, m.role, m.send_at, m.content)) for m in rows]
            for scope, key in keys
            if scope != LOCAL
        },
    }


def was_forgotten(conn: Connection, message_id: int) -> str | None:
    """The session of the message ``message_id`` if it was forgotten, else None."""
    row = conn.execute(
        "SELECT session_id FROM forgotten WHERE message_id = ? AND cause = ? LIMIT 1", (message_id, FORGET)
    ).first()
    return None if row is None else str(row[0])


def session_forgotten(conn: Connection, session: str) -> bool:
    """Whether messages of ``session`` were forgotten."""
    return (
        conn.execute(
            "SELECT 1 FROM forgotten WHERE session_id = ? AND cause = ? LIMIT 1", (session, FORGET)
        ).first()
        is not None
    )


def shared(conn: Connection, scope: str) -> dict[str, set[Grave]]:
    """Every tombstone under ``scope`` (a folder's), by session ("" for error-memory records')."""
    found: dict[str, set[Grave]] = {}
    for session, role, send_at, hashed in conn.execute(
        "SELECT session_id, role, send_at, digest FROM forgotten WHERE scope = ?", (scope,)
    ):
        found.setdefault(str(session), set()).add((str(role), int(send_at), str(hashed)))
    return found


def unsynced(conn: Connection, scope: str, session: str, graves: Iterable[Grave]) -> bool:
    """Whether any of ``graves`` is not known to the sync folder yet."""
    for grave in graves:
        row = conn.execute(
            "SELECT synced FROM forgotten WHERE session_id = ? AND digest = ? AND scope = ? AND role = ? "
            "AND send_at = ? ORDER BY synced DESC LIMIT 1",
            (session, grave[2], scope, grave[0], grave[1]),
        ).first()
        if row is None or not row[0]:
            return True
    return False


def rekey_plain(conn: Connection, key: bytes) -> int:
    """Hash the former unkeyed import keys ``m015_one_tombstone_table`` moved in under the home's key
    (scope ``~import``), in the caller's transaction; how many."""
    rows = conn.execute("SELECT id, digest FROM forgotten WHERE scope = ?", (PLAIN,)).all()
    for rowid, raw in rows:
        conn.execute(
            "UPDATE forgotten SET digest = ?, scope = ? WHERE id = ?",
            (digest(key, str(raw)), IMPORTED, rowid),
        )
    return len(rows)


def has_plain(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM forgotten WHERE scope = ? LIMIT 1", (PLAIN,)).first() is not None


def copy_rows(conn: Connection, rows: Iterable[Sequence[object]]) -> int:
    """Insert tombstone rows read back from a damaged database (``(rowid, *COLUMNS)``); return how many."""
    count = 0
    for row in rows:
        values = tuple(row[1:])
        if len(values) == M014_COLUMNS:
            values += (LOCAL, FORGET, 0)
        if len(values) != len(COLUMNS) or not all(
            isinstance(v, str) for v in (values[0], values[1], values[3], values[6], values[7])
        ):
            continue
        marks = ", ".join("?" * len(COLUMNS))
        conn.execute(f"INSERT INTO forgotten({', '.join(COLUMNS)}) VALUES ({marks})", values)
        count += 1
    return count


class Buried:
    """Asks whether a message is a gone one: ``buried(session, message, archived_time)``, or
    :meth:`scope` for which key's tombstone it matches (a sync re-keys one under the home's key).

    Reads a session's tombstones once (nothing, and no key, for a session that has none).
    """

    def __init__(self, keys: TombKeys, conn: Connection) -> None:
        self._keys = keys
        self._conn = conn
        self._held: dict[str, bytes] | None = None
        self._sessions: dict[str, dict[str, set[Grave]]] = {}
        self._sessionless: set[Grave] | None = None
        self._marked: set[str] | None = None  # the sessions with a tombstone of their own

    def __call__(self, session: str, message: Message, archived_time: int) -> bool:
        return self.scope(session, message.role, message.content, archived_time) is not None

    def scope(self, session: str, role: str, content: str, archived_time: int) -> str | None:
        """The scope of a tombstone of this message, or None when it has none."""
        found = self._sessions.get(session)
        if found is None:
            found = self._sessions[session] = self._read(session)
        if not found:
            return None
        held = self._key_ring()
        for scope, graves in found.items():
            key = held.get(scope)
            if key is None:
                continue
            if scope == IMPORTED:
                text = identity.message_key(session, role, content, archived_time)
                if ("", 0, digest(key, text)) in graves:
                    return scope
            elif (role, archived_time, digest(key, content)) in graves:
                return scope
        return None

    def _key_ring(self) -> dict[str, bytes]:
        if self._held is None:
            self._held = self._keys.reading(self._conn)
            if LOCAL not in self._held:
                log.warning("the forget key of this home is missing: forgotten messages cannot be recognized")
        return self._held

    def _read(self, session: str) -> dict[str, set[Grave]]:
        if self._sessionless is None:  # former import keys whose session was not known: every session's
            self._sessionless = {
                ("", 0, str(d))
                for (d,) in self._conn.execute(
                    "SELECT digest FROM forgotten WHERE session_id = '' AND scope = ? AND role != ?",
                    (IMPORTED, ERROR),
                )
            }
        if self._marked is None:  # one query, not one per session (most have no tombstone)
            self._marked = {
                str(s)
                for (s,) in self._conn.execute(
                    "SELECT DISTINCT session_id FROM forgotten WHERE session_id != ''"
                )
            }
        found: dict[str, set[Grave]] = {IMPORTED: set(self._sessionless)} if self._sessionless else {}
        if session not in self._marked:
            return found
        for scope, role, send_at, hashed in self._conn.execute(
            "SELECT scope, role, send_at, digest FROM forgotten WHERE session_id = ?", (session,)
        ):
            found.setdefault(str(scope), set()).add((str(role), int(send_at), str(hashed)))
        return found


def error_buried(keys: TombKeys, conn: Connection) -> Callable[[str], str | None]:
    """Asks whether an error-memory record (by its duplicate key) is a forgotten one: the scope of its
    tombstone, or None."""
    found: dict[str, set[str]] = {}
    for scope, hashed in conn.execute(
        "SELECT scope, digest FROM forgotten WHERE session_id = '' AND role = ?", (ERROR,)
    ):
        found.setdefault(str(scope), set()).add(str(hashed))
    held = keys.reading(conn) if found else {}

    def check(dedupe: str) -> str | None:
        for scope, hashed in found.items():
            key = held.get(scope)
            if key is not None and digest(key, dedupe) in hashed:
                return scope
        return None

    return check
