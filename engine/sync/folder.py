"""The shared folder's layout, and which of its files are whole files of memtray's own.

::

    <folder>/memtray/sync.json                  how the key is derived (salt, Argon2id limits) and a check
    <folder>/memtray/<device id>/seg-<seq>.mts  immutable encrypted segments, seq = 000000000001, 2, …
    <folder>/memtray/<device id>/snap-<seq>.mts a snapshot: the device's segments 1 to seq in one file
    <folder>/memtray/<device id>/manifest.mtm   the device's encrypted manifest (rewritten by rename)

Each device writes only in its own folder, so the sync engine never merges memtray's files. A file is
written under a temporary name, flushed to disk, then renamed: a reader sees the whole file or none. What
a sync engine leaves beside them is never read as a segment: its conflict copies
(``seg-….sync-conflict-….mts``, ``seg-… (conflicted copy).mts``, ``seg-…-1.mts``), its partial
downloads (``.syncthing.….tmp``, ``~$…``, ``….partial``) and zero-length files. Only names that match
:data:`SEGMENT` exactly count; a whole-looking file that does not decrypt is treated as still arriving.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from engine.errors import SyncError
from engine.storage.atomic import sync_dir

ROOT = "memtray"
CONFIG = "sync.json"
MANIFEST = "manifest.mtm"
SEGMENT = re.compile(r"^seg-(\d{12})\.mts$")
SNAPSHOT = re.compile(r"^snap-(\d{12})\.mts$")
DEVICE = re.compile(r"^[0-9a-f]{16}$")
TMP_PREFIX = ".memtray-tmp-"


def root(folder: Path) -> Path:
    return folder / ROOT


def device_dir(folder: Path, device: str) -> Path:
    return root(folder) / device


def segment_name(seq: int) -> str:
    return f"seg-{seq:012d}.mts"


def snapshot_name(seq: int) -> str:
    """A snapshot of a device's segments 1 to ``seq``, packed into one file."""
    return f"snap-{seq:012d}.mts"


def devices(folder: Path) -> list[str]:
    """The device folders present (a conflict copy of a folder's name is not a device)."""
    base = root(folder)
    try:
        return sorted(p.name for p in base.iterdir() if DEVICE.match(p.name) and p.is_dir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise SyncError(f"the sync folder {base} cannot be read: {exc.strerror or exc}") from exc


def segments(folder: Path, device: str, pattern: re.Pattern[str] = SEGMENT) -> dict[int, Path]:
    """A device's whole-looking segments (or, with :data:`SNAPSHOT`, snapshots) by sequence number: exact
    names, not empty."""
    found: dict[int, Path] = {}
    try:
        entries = list(os.scandir(device_dir(folder, device)))
    except FileNotFoundError:
        return found
    except OSError as exc:
        raise SyncError(f"the sync folder of device {device} cannot be read: {exc.strerror or exc}") from exc
    for entry in entries:
        match = pattern.match(entry.name)
        if match is None:
            continue
        try:
            if entry.is_file() and entry.stat().st_size > 0:
                found[int(match.group(1))] = Path(entry.path)
        except OSError:
            continue  # vanished while listed: a sync engine replacing it
    return found


def write_atomically(path: Path, data: bytes, *, replace: bool = False) -> None:
    """Write ``path`` under a temporary name in its folder, flush it, rename it into place, flush the
    folder. ``replace``: a file already there is replaced (the manifest); otherwise it is an error
    (segments are never changed).

    Raises:
        SyncError: it cannot be written (nothing is left under the final name).
    """
    tmp = path.parent / f"{TMP_PREFIX}{secrets.token_hex(6)}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not replace and path.exists():
            raise SyncError(f"{path.name} exists already: segments are never rewritten")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            out.write(data)  # owner-only, like the home's files (encrypted all the same)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        sync_dir(path.parent)
    except OSError as exc:
        raise SyncError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        if tmp.exists():
            tmp.unlink(missing_ok=True)


def remove_temporaries(directory: Path) -> None:
    """Delete this device's temporary files left by a killed write."""
    try:
        for entry in directory.glob(f"{TMP_PREFIX}*"):
            entry.unlink(missing_ok=True)
    except OSError:
        pass
