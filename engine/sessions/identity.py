"""Global message identity: the device id of a home, each message's global id, the import key, and the
journal of changes other than new messages (forgets, resets, removals, titles) that a sync sends on.

A message's **global id** is given when it is first written, on every way in (append, import, MCP,
chat), and kept in ``message_gids`` beside its local row id:

- written here (an append): ``<device id>.<row id>`` — the device id (16 random hex digits, made once per
  home by ``m012_global_ids``) and the local row id, which SQLite's AUTOINCREMENT never reuses, as the
  device's sequence. Chosen over UUIDv7 because it needs no clock (skew cannot reorder or collide it),
  is half the size, and says which device wrote the message.
- imported from a file (ChatGPT, Claude, an agent's transcript): ``k:<import key>``, so the same export
  imported on two devices gives the same ids before they ever sync.

The **import key** (:func:`message_key`) is a digest of (session, role, exact text, archived time): the
identity a re-import already uses. Two messages with the same key are one message, on every device.

A forget, reset or removal journals what a sync tells the other devices of what it deleted
(``session_changes``): the global ids written on a device and the keyed tombstones
(:mod:`engine.sessions.tombstones`), never the text nor an unkeyed hash of it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from typing import Any

from engine.messages import Message
from engine.storage import bulk
from engine.storage.sql import Connection, in_chunks

IMPORT_PREFIX = "k:"

FORGET, RESET, REMOVE, TITLE, ERROR_FORGET = "forget", "reset", "remove", "title", "error-forget"
"""The kinds of change in the journal (``session_changes``); an error-memory record's forget has no
session, and its tombstone is a keyed hash of the record's duplicate key."""


def new_device_id() -> str:
    """A fresh device id: 64 random bits as 16 hex digits."""
    return secrets.token_hex(8)


def device_id(conn: Connection) -> str:
    """This home's device id (made by ``m012_global_ids``)."""
    return str(conn.execute("SELECT id FROM device ORDER BY created_at LIMIT 1").scalar_one())


def message_key(session: str, role: str, content: str, send_at: int) -> str:
    """The import key's digest: 32 hex digits of BLAKE2b over (session, role, exact text, archived time),
    each part preceded by its length."""
    s, r, c = (p.encode("utf-8", "surrogatepass") for p in (session, role, content))
    data = b"%d:%s%d:%s%d:%s%d" % (len(s), s, len(r), r, len(c), c, int(send_at))
    return hashlib.blake2b(data, digest_size=16, person=b"memtray-msg-key").hexdigest()


def import_gid(session: str, role: str, content: str, send_at: int) -> str:
    """The global id of an imported message: the same on every device that imports it."""
    return IMPORT_PREFIX + message_key(session, role, content, send_at)


def with_import_gids(session: str, messages: Sequence[Message], times: Sequence[int]) -> list[Message]:
    """``messages`` with a global id each (those without one get :func:`import_gid` of their archived
    time; a key repeated in the batch gets ``#2``, ``#3`` … after the first)."""
    seen: dict[str, int] = {}
    result = []
    for message, at in zip(messages, times, strict=True):
        gid = message.gid or import_gid(session, message.role, message.content, at)
        count = seen[gid] = seen.get(gid, 0) + 1
        if count == 1 and gid == message.gid:
            result.append(message)
        else:
            result.append(message.with_gid(gid if count == 1 else f"{gid}#{count}"))
    return result


def record_gids(conn: Connection, ids: Sequence[int], messages: Sequence[Message]) -> None:
    """Store the global id of each newly inserted row (its own, or ``<device>.<row id>``)."""
    if not ids:
        return
    device = device_id(conn)
    rows = [(i, m.gid or f"{device}.{i}") for i, m in zip(ids, messages, strict=True)]
    bulk.insert_rows(conn, "INSERT INTO message_gids(id, gid) VALUES", rows)


def gids_of(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    """The global ids of the rows ``ids``."""
    found: dict[int, str] = {}
    for chunk, marks in in_chunks(ids):
        for i, g in conn.execute(f"SELECT id, gid FROM message_gids WHERE id IN ({marks})", chunk):
            found[int(i)] = str(g)
    return found


def record_change(conn: Connection, kind: str, session: str, detail: dict[str, Any], at: int) -> None:
    """Add a change to the journal, in the caller's transaction (a forget's tombstones are made by
    :mod:`engine.sessions.tombstones`)."""
    conn.execute(
        "INSERT INTO session_changes(kind, session_id, detail, at) VALUES (?, ?, ?, ?)",
        (kind, session, json.dumps(detail, ensure_ascii=False, separators=(",", ":")), at),
    )


def record_title(conn: Connection, session: str, title: str, source: str, at: int) -> None:
    """Journal a session's new title (``source``: ``user`` or ``imported``; "" when cleared): a sync sends
    every title change, whatever its kind, and the newest wins on every device."""
    record_change(conn, TITLE, session, {"title": title, "source": source if title else ""}, at)


def drop_titles(conn: Connection, session: str) -> None:
    """Delete the journal's title changes of a session being removed (no title of it stays behind)."""
    conn.execute("DELETE FROM session_changes WHERE kind = ? AND session_id = ?", (TITLE, session))
