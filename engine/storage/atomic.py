"""Atomic file writes: a reader or a crash sees the old file or the new one, never half of one.

The data goes to a temporary file (in ``tmp_dir`` or beside the target, always on the same file system),
is flushed with fsync, renamed over the target, and the folder is synced.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def atomic_write(
    path: Path, data: bytes | bytearray, *, tmp_dir: Path | None = None, mode: int = 0o600
) -> None:
    """Replace ``path`` with ``data`` atomically and durably (data flushed before the rename)."""
    folder = tmp_dir or path.parent
    tmp = folder / f"{tmp_prefix(path)}{uuid.uuid4().hex}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            with memoryview(data) as whole:
                view = whole
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                del view
            _flush(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def tmp_prefix(path: Path) -> str:
    """How the names of ``path``'s temporary files begin (its folder's name too: many files share a
    name, every session's history.json), so the leftovers of a killed write can be found by file."""
    return f".{path.parent.name}.{path.name}."


def _flush(fd: int) -> None:
    """Flush a file's data to disk: fdatasync where it exists (the size is data), else fsync."""
    if hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:
        os.fsync(fd)


def sync_dir(folder: Path) -> None:
    """fsync a folder so a rename in it is durable (POSIX only)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
