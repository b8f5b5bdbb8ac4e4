"""Growth: a device packs its own segments into a snapshot, and removes old segments once every device
it knows has applied them.

A snapshot ``snap-<S>.mts`` stands for the device's segments 1 to S: every message it sent that is still
in its archive (a forgotten one is not: packing is also when its ciphertext leaves the folder), the
tombstones under the folder's key known here by session, the title and shared-setting changes made here still in force, the live error-memory
records and the summaries in force here that it wrote. A new device applies the newest snapshot and then the segments after it, instead of replaying thousands of small files;
since applying is idempotent, a device that had applied part of the range applies the snapshot as well.

Segments up to S are deleted when the manifest of every other device says it applied S, or when that
device has not written its manifest for :data:`HORIZON_NS` (it catches up from the snapshot when it
returns); older snapshots go as soon as the new one is in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.clock import DAY_NS
from engine.errors import SyncError
from engine.paths import Paths
from engine.sessions import identity, tombstones
from engine.storage.sql import Connection
from engine.storage.store import Store
from engine.sync import errorrecords, export, sharedsettings, state, summaries
from engine.sync import folder as layout
from engine.sync.segment import Row, Segment, decode_manifest, encode

PACK_AFTER = 64
"""Segments since the last snapshot before a device packs again."""

HORIZON_NS = 90 * DAY_NS
"""A device silent for this long no longer holds back the removal of old segments."""


def collect(conn: Connection, me: str, now: int, paths: Paths) -> dict[str, Any]:
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
    changes: list[dict[str, Any]] = []
    for session, graves in sorted(tombstones.shared(conn, state.get(conn, state.FOLDER_ID)).items()):
        kind = identity.FORGET if session else identity.ERROR_FORGET
        changes.append(
            {"kind": kind, "session": session, "gids": [], "graves": [list(g) for g in sorted(graves)]}
        )
    for session, at, title_key, title, source in conn.execute(
        "SELECT t.session_id, t.at, t.title_key, COALESCE(s.title, ''), COALESCE(s.title_source, '') "
        "FROM sync_titles t LEFT JOIN sessions s ON s.id = t.session_id WHERE t.device = ?",
        (me,),
    ):  # the changes of title made here still in force (a removal's "no title" too)
        if state.title_key(str(title), str(source)) == str(title_key):
            changes.append(export.title_change(str(session), str(title), str(source), int(at)))
    changes += sharedsettings.in_force(conn, me)
    records, _ = errorrecords.collect_since(conn, 0, now)
    told, _ = summaries.collect(conn, paths, me, every=True)
    return {"messages": messages, "changes": changes, "errors": records, "summaries": told}


def pack(store: Store, folder: Path, key: bytes, me: str, now: int, paths: Paths) -> tuple[int, int]:
    """Pack this device's segments into a snapshot when :data:`PACK_AFTER` have piled up since the last
    one; remove older snapshots, and the segments it covers once every device has applied them.
    Returns (snapshots written, segments removed)."""
    own = layout.segments(folder, me)
    newest = max(layout.segments(folder, me, layout.SNAPSHOT), default=0)
    packed = removed = 0
    if own and len([s for s in own if s > newest]) >= PACK_AFTER:
        with store.read() as conn:
            top = max(state.get_int(conn, state.NEXT_SEQ) - 1, 0)
            content = collect(conn, me, now, paths)
            schema = str(conn.execute("SELECT MAX(name) FROM migrations").scalar_one())
        if top > newest:
            snapshot = Segment(
                me,
                top,
                schema,
                now,
                content["messages"],
                changes=content["changes"],
                errors=content["errors"],
                summaries=content["summaries"],
            )
            layout.write_atomically(
                layout.device_dir(folder, me) / layout.snapshot_name(top),
                encode(snapshot, key, snapshot=True),
            )
            packed, newest = 1, top
    for seq, path in layout.segments(folder, me, layout.SNAPSHOT).items():
        if seq < newest:
            path.unlink(missing_ok=True)
    if newest and all_applied(folder, key, me, newest, now):
        for seq, path in own.items():
            if seq <= newest:
                path.unlink(missing_ok=True)
                removed += 1
    return packed, removed


def all_applied(folder: Path, key: bytes, me: str, seq: int, now: int) -> bool:
    """Whether every other device applied ``me``'s segments up to ``seq`` (by its manifest), or has been
    silent past the horizon."""
    for device in layout.devices(folder):
        if device == me:
            continue
        try:
            manifest = decode_manifest(
                (layout.device_dir(folder, device) / layout.MANIFEST).read_bytes(), key, device
            )
        except (OSError, SyncError):
            return False  # not readable yet: keep the segments
        if manifest.applied.get(me, 0) < seq and now - manifest.written_at < HORIZON_NS:
            return False
    return True
