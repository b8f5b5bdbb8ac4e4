"""A segment: one device's batch of changes, in a versioned, self-describing format, encrypted.

On disk: the magic line ``MTSYNC1\\n``, then the sealed bytes (:func:`engine.sync.crypto.seal`, bound to
the name ``seg:<device>:<seq>``) of zlib-compressed JSON::

    {"format": "memtray-sync-segment", "version": 2, "schema": "m015_…", "device": "…", "seq": 7,
     "written_at": ns,
     "messages": [[gid, session, role, content, send_at, sender], …],   # oldest first
     "titles": {session: imported title},                             # older segments only
     "changes": [{"kind": "forget"|"reset"|"remove", "session": …, "gids": […],
                  "graves": [[role, archived time, keyed hash of the text], …]},
                 {"kind": "title", "session": …, "title": …, "source": "user"|"imported"|"", "at": ns},
                 {"kind": "error-forget", "session": "", "graves": [["error", 0, keyed hash]]}],
     "errors": [{error-memory record …, "dedupe": duplicate key}],
     "summaries": [{"session": …, "summary": {summary.json}, "cursor": {"gid": …, "after": …, "at": ns,
                    "mark": …, "written": ns}, "digest": …, "seen": [tombstone prefixes]}]}

Version 2 carries tombstones keyed with the folder's shared tombstone key (:mod:`engine.sync.tombkey`)
instead of version 1's unkeyed import keys (a version-1 segment is read; its tombstones match nothing), and
summaries (:mod:`engine.sync.summaries`). Every title change, an import's or a removal's too, travels as a
``title`` change with its clock; the ``titles`` map of imported titles written beside the messages by
earlier builds is read as title changes older than any other.

Why not SQLite changesets (the session extension): a changeset replays rows by primary key, and a
message's primary key is a local row id that differs on every device; applying one would need a shadow
table keyed by global id and a conflict handler that does, row by row, what the import already does
(dedupe by import key, feed the FTS and embedding queue, write history.json). The JSON form carries
exactly the global identity, compresses to ~0.4× of the archive's text, and reads in any language.

The manifest (``manifest.mtm``) is sealed the same way under ``manifest:<device>``: the device's name, its
last segment and what it has applied of each other device.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from engine.errors import SyncError
from engine.sync import crypto, jsonslices

MAGIC = b"MTSYNC1\n"
FORMAT = "memtray-sync-segment"
MANIFEST_FORMAT = "memtray-sync-manifest"
VERSION = 2

Row = tuple[str, str, str, str, int, str]
"""A synced message: (global id, session, role, text, archived time, sender)."""


class NewerFormat(SyncError):
    """A segment written by a newer memtray: applying stops there until this one is updated."""


@dataclass
class Segment:
    device: str
    seq: int
    schema: str
    written_at: int
    messages: list[Row] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.messages or self.titles or self.changes or self.errors or self.summaries)


@dataclass
class Manifest:
    device: str
    name: str
    last_seq: int
    written_at: int
    applied: dict[str, int] = field(default_factory=dict)


def _pack(data: dict[str, Any], key: bytes, name: str) -> bytes:
    raw = jsonslices.dumps(data).encode("utf-8", "surrogatepass")  # in slices: the GUI thread runs between
    return MAGIC + crypto.seal(key, zlib.compress(raw, 6), name.encode("ascii"))


def _unpack(blob: bytes, key: bytes, name: str, kind: str) -> dict[str, Any]:
    if not blob.startswith(MAGIC):
        raise SyncError(f"{name} is not a memtray {kind} (or is still arriving)")
    plain = crypto.unseal(key, blob[len(MAGIC) :], name.encode("ascii"))
    try:
        data = jsonslices.loads(zlib.decompress(plain).decode("utf-8", "surrogatepass"))
    except (zlib.error, ValueError) as exc:
        raise SyncError(f"{name} does not hold a readable {kind}") from exc
    if not isinstance(data, dict):
        raise SyncError(f"{name} does not hold a readable {kind}")
    if int(data.get("version", 0)) > VERSION:
        raise NewerFormat(f"{name} was written by a newer memtray: update memtray on this device")
    return data


def segment_name(device: str, seq: int, snapshot: bool = False) -> str:
    return f"{'snap' if snapshot else 'seg'}:{device}:{seq}"


def encode(segment: Segment, key: bytes, *, snapshot: bool = False) -> bytes:
    data = {
        "format": FORMAT,
        "version": VERSION,
        "schema": segment.schema,
        "device": segment.device,
        "seq": segment.seq,
        "written_at": segment.written_at,
        "messages": [list(row) for row in segment.messages],
        "titles": segment.titles,
        "changes": segment.changes,
        "errors": segment.errors,
        "summaries": segment.summaries,
    }
    return _pack(data, key, segment_name(segment.device, segment.seq, snapshot))


def decode(blob: bytes, key: bytes, device: str, seq: int, *, snapshot: bool = False) -> Segment:
    """The segment in ``blob``, which must be ``device``'s number ``seq``.

    Raises:
        NewerFormat: written by a newer memtray.
        SyncError: incomplete, altered, or not this segment.
    """
    name = segment_name(device, seq, snapshot)
    data = _unpack(blob, key, name, "segment")
    try:
        if data["format"] != FORMAT or data["device"] != device or int(data["seq"]) != seq:
            raise ValueError("names another segment")
        messages: list[Row] = [
            (str(g), str(s), str(r), str(c), int(t), str(n)) for g, s, r, c, t, n in data["messages"]
        ]
        return Segment(
            device,
            seq,
            str(data["schema"]),
            int(data["written_at"]),
            messages,
            {str(k): str(v) for k, v in dict(data.get("titles", {})).items()},
            [dict(c) for c in data.get("changes", [])],
            [dict(e) for e in data.get("errors", [])],
            [dict(x) for x in data.get("summaries", [])],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SyncError(f"{name} does not hold a readable segment ({exc})") from exc


def encode_manifest(manifest: Manifest, key: bytes) -> bytes:
    data = {
        "format": MANIFEST_FORMAT,
        "version": VERSION,
        "device": manifest.device,
        "name": manifest.name,
        "last_seq": manifest.last_seq,
        "written_at": manifest.written_at,
        "applied": manifest.applied,
    }
    return _pack(data, key, f"manifest:{manifest.device}")


def decode_manifest(blob: bytes, key: bytes, device: str) -> Manifest:
    data = _unpack(blob, key, f"manifest:{device}", "manifest")
    try:
        if data["format"] != MANIFEST_FORMAT or data["device"] != device:
            raise ValueError("names another device")
        applied = {str(k): int(v) for k, v in dict(data.get("applied", {})).items()}
        return Manifest(device, str(data["name"]), int(data["last_seq"]), int(data["written_at"]), applied)
    except (KeyError, TypeError, ValueError) as exc:
        raise SyncError(f"the manifest of {device} is not readable ({exc})") from exc
