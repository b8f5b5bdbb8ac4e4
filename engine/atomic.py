"""Atomic file writes: a reader or a crash sees the old file or the new one, never half of one.

The data goes to a temporary file (in ``tmp_dir`` or beside the target, always on the same file system),
is flushed with fsync, renamed over the target, and the folder is synced.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def atomic_write(path: Path, data: bytes, *, tmp_dir: Path | None = None, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` atomically and durably."""
    folder = tmp_dir or path.parent
    tmp = folder / f".{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def sync_dir(folder: Path) -> None:
    """fsync a folder so a rename in it is durable (POSIX only)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
