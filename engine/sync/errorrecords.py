"""Error-memory records across devices: each ``sync now`` sends the records written or hit since the last
one, and applies the others' by duplicate key (same tool, symptom and action): the newest write wins
whole, its expiry kept. A forgotten record's tombstone (a keyed hash of its duplicate key) goes with the
other tombstones (:mod:`engine.sync.apply`); no sync brings that record back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.errormemory import rows
from engine.errormemory.records import ErrorRecord
from engine.storage.sql import Connection
from engine.sync import state

WATERMARK = "errors_exported_at"


def collect(conn: Connection, now: int) -> tuple[list[dict[str, Any]], int]:
    """The live records written or hit since the last export (their expiry moved past the watermark),
    with their duplicate keys; and the new watermark."""
    return collect_since(conn, state.get_int(conn, WATERMARK), now)


def collect_since(conn: Connection, since: int, now: int) -> tuple[list[dict[str, Any]], int]:
    """The live records whose expiry is past ``since``, and the largest expiry among them."""
    found, top = [], since
    for row in conn.execute(
        "SELECT num, id, tool_name, keywords, symptom, cause, action, outcome, created_at, expires_at, dedupe "
        "FROM error_memory WHERE expires_at > ? AND expires_at > ? ORDER BY expires_at",
        (since, now),
    ):
        record = rows.to_record(row[:10])
        found.append({**record.to_json(), "dedupe": str(row[10])})
        top = max(top, record.expires_at)
    return found, top


def apply(
    conn: Connection, records: Sequence[dict[str, Any]], now: int, buried: Callable[[str], str | None]
) -> int:
    """Store the records that are new here or newer than this device's and not forgotten (``buried``: the
    tombstone of a duplicate key, :func:`engine.sessions.tombstones.error_buried`); how many changed."""
    changed = 0
    for data in records:
        dedupe = str(data["dedupe"])
        if buried(dedupe) is not None or int(data["expires_at"]) <= now:
            continue
        incoming = ErrorRecord(
            id=str(data["id"]),
            tool_name=str(data["tool_name"]),
            keywords=tuple(str(k) for k in data["keywords"]),
            symptom=str(data["symptom"]),
            cause=str(data["cause"]),
            action=str(data["action"]),
            outcome=str(data["outcome"]),
            created_at=int(data["created_at"]),
            expires_at=int(data["expires_at"]),
        )
        local = rows.by_dedupe(conn, dedupe)
        if local is None:
            if not rows.id_taken(conn, incoming.id):
                rows.insert(conn, incoming, dedupe)
                changed += 1
        elif incoming.expires_at > local[1].expires_at:
            rows.update(conn, local[0], incoming)
            changed += 1
    return changed
