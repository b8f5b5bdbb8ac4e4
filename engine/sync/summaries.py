"""Summaries across devices: the newest summary of a session and its cursor travel in the segments
(encrypted like the rest), so a user with two laptops pays Gemini once.

**Which wins**: the one its summarizer wrote last, by the summarizer's own stamp (the cursor's ``written``,
:mod:`engine.summary.files`; an older cursor without one counts by its file's time), ties broken by a
digest of the summary and cursor: the same choice on every device. A device whose own summary is newer
keeps it (and sends it). A device still summarizes what no summary reaches (it may also rebuild).

**What travels** (``segment.summaries``): the session, the summary as ``summary.json`` holds it, and the
cursor in a form every device can read: the anchor's global id instead of its local row id (with its mark,
its time and the count after it), the stamp, the digest, and ``seen``: a prefix of each tombstone under the
folder's key of that session the sender knew (:mod:`engine.sessions.tombstones`).

**A cursor that points past messages this device does not have yet** (its anchor has not arrived, or the
session has no messages here yet): the summary **waits** (kept in this device's sync state, not
installed) and is installed once its anchor arrives, if it is still the newest. Clamping the cursor to
what is here instead would either summarize again what the summary holds (paid twice) or mark as
summarized messages it never saw (lost from it); waiting does neither, and nothing is lost.

**Forgets**: a forget, reset with its summary, or removal deletes the session's summary on the device
where it is made (the summarizer's own rule, :func:`engine.sessions.folders.mark_summary_stale`); when its
tombstones arrive here, the memory's own forget (or reset with its summary) deletes this device's summary
the same way; a reset that keeps its summary keeps it here too. Two more rules
keep a forgotten text out of a synced summary: a summary that arrives is not installed when this device
knows a tombstone of the session its sender did not (``seen``: it may have been written before that
forget), and an arriving forget or removal drops the session's waiting summary and deletes the one in
force here when it came from another device. When this device's own summary is in force and the forget
deleted nothing here (it never held the text), it is sent again with the tombstones known now, so a
device that refused it takes it: the devices converge on one summary.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from engine.messages import Message
from engine.paths import Paths
from engine.sessions import identity
from engine.sessions.folders import is_private, mark_summary_stale, mtime, session_ids, size_and_mtime
from engine.storage.sql import Connection
from engine.storage.store import Store
from engine.summary import files
from engine.summary.schema import coerce
from engine.sync import state

log = logging.getLogger("memtray.sync")

IN_FORCE, PENDING, SCANNED, RESEND = "summaries", "pending_summaries", "summaries_scanned", "summaries_resend"
"""sync_state keys: the summary in force per session (``[written, digest, device]``), the summaries
waiting for their anchor (by session), the newest session-folder time the export has read, and the
sessions whose summary is sent again (with the tombstones known now)."""

SEEN_CHARS = 16


class Host(Protocol):
    """What summaries need of the memory (:class:`engine.memory.Memory` has it)."""

    @property
    def paths(self) -> Paths: ...
    def exists(self, session: str) -> bool: ...
    def history(self, session: str) -> list[Message]: ...
    def summary_lock(self, session: str) -> AbstractContextManager[None]: ...


def digest(summary: dict[str, Any], cursor: dict[str, Any]) -> str:
    """The tie-breaker: a digest of the summary and where its cursor points (not its row ids)."""
    data = {"s": summary, "c": [cursor.get("after", 0), cursor.get("at", 0), cursor.get("mark", "")]}
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _local(paths: Paths, session: str) -> tuple[dict[str, Any], files.Cursor, int, str] | None:
    """The session's summary here: (summary, cursor, stamp, digest); None without both files, or with an
    older cursor (it is replaced at the next summary run, then sent)."""
    if not paths.summary_file(session).is_file():
        return None
    text = (
        paths.cursor_file(session).read_text(encoding="utf-8", errors="replace").strip()
        if (paths.cursor_file(session).is_file())
        else ""
    )
    cursor = files.parse_cursor(text) if text else None
    if cursor is None or cursor.legacy:
        return None
    summary = files.load(paths, session).to_json()
    stamp = cursor.written or mtime(paths.cursor_file(session))
    return summary, cursor, stamp, digest(summary, _portable(cursor, ""))


def _portable(cursor: files.Cursor, gid: str) -> dict[str, Any]:
    return {
        "gid": gid,
        "after": cursor.after,
        "at": cursor.at,
        "mark": cursor.mark,
        "written": cursor.written,
    }


def _seen(conn: Connection, scope: str, session: str) -> set[str]:
    rows = conn.execute(
        "SELECT digest FROM forgotten WHERE scope = ? AND session_id = ?", (scope, session)
    ).all()
    return {str(d)[:SEEN_CHARS] for (d,) in rows}


def _json(conn: Connection, key: str) -> dict[str, Any]:
    data = json.loads(state.get(conn, key, "{}") or "{}")
    return data if isinstance(data, dict) else {}


def _put(conn: Connection, key: str, data: dict[str, Any]) -> None:
    state.put(conn, key, json.dumps(data, ensure_ascii=False, sort_keys=True))


# -- sending ------------------------------------------------------------------------------------------


def collect(
    conn: Connection, paths: Paths, me: str, *, every: bool = False
) -> tuple[list[dict[str, Any]], int]:
    """The summaries written here since the last export and not in force already (``every``: each one in
    force here that this device wrote, for a snapshot); and the newest session-folder time read.

    A summary or cursor written into a session folder changes that folder's time (the file is renamed
    into it), so one ``stat`` per session passes over every session unchanged since the last export.
    """
    scanned = 0 if every else state.get_int(conn, SCANNED)
    again = set() if every else set(_json(conn, RESEND))
    in_force = _json(conn, IN_FORCE)
    scope = state.get(conn, state.FOLDER_ID)
    root = f"{paths.sessions_dir}{os.sep}"  # str paths: a Path per session costs more than its stat
    found, top = [], scanned
    for session in session_ids(paths):
        if is_private(session):  # never summarized
            continue
        changed = size_and_mtime(root + session)[1]
        if not changed or (changed < scanned and session not in again):
            continue
        top = max(top, changed)
        local = _local(paths, session)
        if local is None:
            continue
        summary, cursor, stamp, hashed = local
        force = in_force.get(session)
        if every:
            if force is None or force[2] != me or force[:2] != [stamp, hashed]:
                continue
        elif (
            force is not None
            and (stamp, hashed) <= (int(force[0]), str(force[1]))
            and (session not in again or force[2] != me)
        ):
            continue  # the one in force (sent, or received and installed), or older than it
        gid = identity.gids_of(conn, [cursor.id]).get(cursor.id, "") if cursor.id else ""
        found.append(
            {
                "session": session,
                "summary": summary,
                "cursor": {**_portable(cursor, gid), "written": stamp},
                "digest": hashed,
                "seen": sorted(_seen(conn, scope, session)),
            }
        )
    return found, top


def commit(conn: Connection, me: str, sent: Iterable[dict[str, Any]], scanned: int) -> None:
    """Record what was sent as in force, and how far the export read (in the caller's transaction)."""
    in_force = _json(conn, IN_FORCE)
    for item in sent:
        in_force[str(item["session"])] = [int(item["cursor"]["written"]), str(item["digest"]), me]
    _put(conn, IN_FORCE, in_force)
    state.put(conn, SCANNED, scanned)
    _put(conn, RESEND, {})


# -- receiving ----------------------------------------------------------------------------------------


def apply(store: Store, host: Host, device: str, offered: list[dict[str, Any]], scope: str) -> int:
    """Install each offered summary that is newer than this device's (see the module), then retry the
    waiting ones; how many were installed."""
    installed = 0
    for item in offered:
        installed += _offer(store, host, {**item, "device": device}, scope)
    with store.read() as conn:
        waiting = list(_json(conn, PENDING).values())
    for item in waiting:
        installed += _offer(store, host, item, scope)
    return installed


def _offer(store: Store, host: Host, item: dict[str, Any], scope: str) -> int:
    session = str(item["session"])
    cursor = dict(item["cursor"])
    stamp, hashed = int(cursor["written"]), str(item["digest"])
    if not host.exists(session):  # its messages have not arrived yet
        _wait(store, session, item)
        return 0
    with host.summary_lock(session):
        local = _local(host.paths, session)
        if local is not None and (stamp, hashed) <= (local[2], local[3]):
            _unwait(store, session)  # this device's own is as new or newer: it stays
            return 0
        with store.read() as conn:
            known = _seen(conn, scope, session)
            anchor = _anchor_id(conn, session, str(cursor.get("gid", "")))
        if not known <= set(map(str, item.get("seen", []))):
            _unwait(store, session)  # written before a forget this device knows: it may hold the text
            log.info(
                "sync: a summary of session %s was written before a forget known here; not used", session
            )
            return 0
        mark = str(cursor.get("mark", ""))
        if anchor is None and cursor.get("gid"):
            anchor = next((m.id for m in reversed(host.history(session)) if files.mark(m) == mark), None)
            if anchor is None:  # the cursor points past messages not here yet: it waits (module docstring)
                _wait(store, session, item)
                return 0
        place = files.Cursor(anchor or 0, int(cursor["after"]), int(cursor["at"]), mark=mark, written=stamp)
        # As the summarizer does: the cursor never points past what summary.json reflects, even if a kill
        # comes in between (then the next run merges again, paid once more, and loses nothing).
        files.write_cursor(host.paths, session, files.Cursor(written=1))
        files.save(host.paths, session, coerce(dict(item["summary"])))
        files.write_cursor(host.paths, session, place)
        now_here = _local(host.paths, session)
        with store.write() as conn:
            in_force = _json(conn, IN_FORCE)
            in_force[session] = [stamp, now_here[3] if now_here else hashed, str(item["device"])]
            _put(conn, IN_FORCE, in_force)
            pending = _json(conn, PENDING)
            if pending.pop(session, None) is not None:
                _put(conn, PENDING, pending)
    return 1


def _anchor_id(conn: Connection, session: str, gid: str) -> int | None:
    if not gid:
        return None
    row = conn.execute(
        "SELECT m.id FROM message_gids g JOIN messages m ON m.id = g.id WHERE g.gid = ? AND m.session_id = ?",
        (gid, session),
    ).first()
    return None if row is None else int(row[0])


def _wait(store: Store, session: str, item: dict[str, Any]) -> None:
    with store.write() as conn:
        pending = _json(conn, PENDING)
        older = pending.get(session)
        if older is None or (int(older["cursor"]["written"]), str(older["digest"])) < (
            int(item["cursor"]["written"]),
            str(item["digest"]),
        ):
            pending[session] = item
            _put(conn, PENDING, pending)


def _unwait(store: Store, session: str) -> None:
    with store.write() as conn:
        pending = _json(conn, PENDING)
        if pending.pop(session, None) is not None:
            _put(conn, PENDING, pending)


def forgotten(store: Store, host: Host, session: str, me: str, *, whole: bool = False) -> None:
    """A forget or removal of ``session`` arrived: drop its waiting summary, and delete the one in force
    here when another device wrote it (the summarizer rebuilds it from what remains); ``whole``: a reset
    that deleted its summary, so this device's goes whoever wrote it."""
    _unwait(store, session)
    with store.read() as conn:
        force = _json(conn, IN_FORCE).get(session)
    if not host.exists(session) or (not whole and force is None):
        return
    with host.summary_lock(session):
        local = _local(host.paths, session)
        if whole or (local is not None and force is not None and force[2] != me and local[3] == force[1]):
            mark_summary_stale(host.paths, session)
            return
    if force is not None and force[2] == me:  # this device's own never held it: told again, with what
        with store.write() as conn:  # is known now, so a device that refused it for that takes it
            again = _json(conn, RESEND)
            again[session] = True
            _put(conn, RESEND, again)
