"""Atomic file writes: a reader or a crash sees the old file or the new one, never half of one.

The data goes to a temporary file (in ``tmp_dir`` or beside the target, always on the same file system),
is flushed with fsync, renamed over the target (on Windows, again for a moment while another program has
the target open), and the folder is synced.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

O_BINARY = getattr(os, "O_BINARY", 0)
"""Add to ``os.open``'s flags: on Windows a file not opened in binary mode gets every LF written as CRLF."""

REPLACE_PATIENCE = 5.0
"""Seconds a replace waits on Windows for other programs to close the target."""


def atomic_write(
    path: Path, data: bytes | bytearray, *, tmp_dir: Path | None = None, mode: int = 0o600
) -> None:
    """Replace ``path`` with ``data`` atomically and durably (data flushed before the rename)."""
    folder = tmp_dir or path.parent
    tmp = folder / f"{tmp_prefix(path)}{uuid.uuid4().hex}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, mode)
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
        replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def tmp_prefix(path: Path) -> str:
    """How the names of ``path``'s temporary files begin (its folder's name too: many files share a
    name, every session's history.json), so the leftovers of a killed write can be found by file."""
    return f".{path.parent.name}.{path.name}."


def replace(source: Path, target: Path, patience: float = REPLACE_PATIENCE) -> None:
    """``os.replace``, tried again for up to ``patience`` seconds on Windows while it is refused.

    Windows refuses to replace a file another program has open (``PermissionError``, "access denied"
    or "sharing violation"), e.g. a second memtray or a reader in the middle of reading history.json;
    readers hold a file for milliseconds, so the rename soon goes through. POSIX replaces at once.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if os.name != "nt" or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


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
