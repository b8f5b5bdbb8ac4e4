"""What this device writes: the messages written here since the last segment, and the changes of its
journal (forgets, resets, removals, titles), as the next segments (:mod:`engine.sync.segment`). A forget
travels as its tombstones under the folder's key (:mod:`engine.sessions.tombstones`) and the global ids
written on a device, never an unkeyed hash of the text.

Messages that arrived from another device (``sync_received``) are not sent on; a change that only echoes
one that arrived (a forget applied here journals a forget of its own) is not either: its keys are known
tombstones already, or its title is the one in force.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.sessions import identity, titles, tombstones
from engine.storage.sql import Connection
from engine.sync import state
from engine.sync.segment import Row

MAX_MESSAGES = 20_000
"""Messages per segment at most (a few MB of text): a new device applies in batches of this size."""


@dataclass
class Batch:
    """The content of the next segment and the cursors it moves to once written."""

    messages: list[Row] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    last_id: int = 0
    last_change: int = 0
    graves: list[tuple[str, list[tombstones.Grave]]] = field(default_factory=list)
    title_clocks: list[tuple[str, int, str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.messages or self.changes)


def collect(conn: Connection, me: str, limit: int = MAX_MESSAGES) -> Batch:
    """The next segment's content (empty when nothing is new), read in the caller's transaction."""
    batch = Batch(
        last_id=state.get_int(conn, state.EXPORTED_ID), last_change=state.get_int(conn, state.EXPORTED_CHANGE)
    )
    rows = conn.execute(
        "SELECT m.id, g.gid, m.session_id, m.role, m.content, m.send_at, m.sender FROM messages m "
        "JOIN message_gids g ON g.id = m.id WHERE m.id > ? "
        "AND NOT EXISTS (SELECT 1 FROM sync_received r WHERE r.id = m.id) ORDER BY m.id LIMIT ?",
        (batch.last_id, limit),
    ).all()
    for mid, gid, session, role, content, send_at, sender in rows:
        batch.messages.append(
            (str(gid), str(session), str(role), str(content), int(send_at), str(sender or ""))
        )
        batch.last_id = int(mid)
    if len(rows) < limit:  # every message written so far is in: the cursor may pass received ones too
        top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").scalar_one()
        batch.last_id = max(batch.last_id, int(top))
    scope = state.get(conn, state.FOLDER_ID)
    for seq, kind, session, detail, at in conn.execute(
        "SELECT seq, kind, session_id, detail, at FROM session_changes WHERE seq > ? ORDER BY seq",
        (batch.last_change,),
    ):
        batch.last_change = int(seq)
        data = json.loads(detail)
        if kind == identity.TITLE:
            title, source = str(data.get("title", "")), str(data.get("source", titles.USER))
            clock = state.title_clock(conn, str(session))
            if clock is not None and clock[2] == state.title_key(title, source):
                continue  # the title in force already (one that arrived, applied here)
            # A title set here after one that arrived wins, whatever the clocks say (a Lamport clock).
            when = max(int(at), clock[0] + 1) if clock is not None else int(at)
            batch.changes.append(title_change(str(session), title, source, when))
            batch.title_clocks.append((str(session), when, title, source))
            continue
        # Tombstones under this folder's key (one made before sync was on, or under another folder's key,
        # cannot be told: the apply re-keys it when the message arrives, engine.sync.apply).
        told = data.get("graves")
        graves = [_grave(g) for g in told.get(scope, [])] if isinstance(told, dict) and scope else []
        gids = [str(g) for g in data.get("gids", [])]
        if graves and not tombstones.unsynced(conn, scope, str(session), graves):
            continue  # an echo of tombstones that arrived, or sent already
        if not graves and not gids:
            continue
        change = {"kind": kind, "session": session, "gids": gids, "graves": [list(g) for g in graves]}
        if data.get("summary"):
            change["summary"] = True  # a reset that deleted the summary: the others delete theirs
        batch.changes.append(change)
        batch.graves.append((str(session), graves))
    return batch


def commit(conn: Connection, me: str, batch: Batch, next_seq: int, now: int) -> None:
    """Record that ``batch`` is written (as segment ``next_seq - 1``), in the caller's transaction."""
    state.put(conn, state.EXPORTED_ID, batch.last_id)
    state.put(conn, state.EXPORTED_CHANGE, batch.last_change)
    state.put(conn, state.NEXT_SEQ, next_seq)
    scope = state.get(conn, state.FOLDER_ID)
    for session, graves in batch.graves:
        tombstones.add(conn, scope, session, graves, now, synced=True)
    for session, at, title, source in batch.title_clocks:
        clock = state.title_clock(conn, session)
        if clock is None or (at, me) >= clock[:2]:
            state.set_title_clock(conn, session, at, me, title, source)


def title_change(session: str, title: str, source: str, at: int) -> dict[str, Any]:
    """A title change as a segment tells it (``source``: ``user``, ``imported``, or "" for no title)."""
    return {"kind": identity.TITLE, "session": session, "title": title, "source": source, "at": at}


def _grave(raw: list[object]) -> tombstones.Grave:
    return (str(raw[0]), int(str(raw[1])), str(raw[2]))
