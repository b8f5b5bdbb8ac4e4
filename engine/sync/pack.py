"""Growth: a device packs its own segments into a snapshot, and removes old segments once every device
it knows has applied them.

A snapshot ``snap-<S>.mts`` stands for the device's segments 1 to S: every message it sent that is still
in its archive (a forgotten one is not: packing is also when its ciphertext leaves the folder), the
tombstones known here by session, its titles in force and the live error-memory records. A new device
applies the newest snapshot and then the segments after it, instead of replaying thousands of small files;
since applying is idempotent, a device that had applied part of the range applies the snapshot as well.

Segments up to S are deleted when the manifest of every other device says it applied S, or when that
device has not written its manifest for :data:`HORIZON_NS` (it catches up from the snapshot when it
returns); older snapshots go as soon as the new one is in place.
"""

from __future__ import annotations

from typing import Any

from engine.clock import DAY_NS
from engine.sessions import identity
from engine.storage.sql import Connection
from engine.sync import errorrecords, state
from engine.sync.segment import Row

PACK_AFTER = 64
"""Segments since the last snapshot before a device packs again."""

HORIZON_NS = 90 * DAY_NS
"""A device silent for this long no longer holds back the removal of old segments."""


def collect(conn: Connection, me: str, now: int) -> dict[str, Any]:
    """The content of a snapshot of everything this device has sent so far (see the module)."""
    exported = state.get_int(conn, state.EXPORTED_ID)
    messages: list[Row] = [
        (str(g), str(s), str(r), str(c), int(t), str(n or ""))
        for g, s, r, c, t, n in conn.execute(
            "SELECT g.gid, m.session_id, m.role, m.content, m.send_at, m.sender FROM messages m "
            "JOIN message_gids g ON g.id = m.id LEFT JOIN sync_received r ON r.id = m.id "
            "WHERE (r.kind IS NULL AND m.id <= ?) OR r.kind = 'moved' ORDER BY m.id",
            (exported,),
        )
    ]
    sessions = {row[1] for row in messages}
    titles = {
        str(sid): str(title)
        for sid, title in conn.execute("SELECT id, title FROM sessions WHERE title_source = 'imported'")
        if sid in sessions
    }
    changes: list[dict[str, Any]] = []
    for session, keys in state.tombstones_by_session(conn).items():
        kind = identity.FORGET if session else identity.ERROR_FORGET
        changes.append({"kind": kind, "session": session, "gids": [], "keys": keys})
    for session, at, title_key, title in conn.execute(
        "SELECT t.session_id, t.at, t.title_key, s.title FROM sync_titles t JOIN sessions s ON s.id = t.session_id "
        "WHERE t.device = ?",
        (me,),
    ):
        if state.title_key(str(title)) == str(title_key):
            changes.append(
                {"kind": identity.TITLE, "session": str(session), "title": str(title), "at": int(at)}
            )
    records, _ = errorrecords.collect_since(conn, 0, now)
    return {"messages": messages, "titles": titles, "changes": changes, "errors": records}
