"""Atomic file writes: a reader or a crash sees the old file or the new one, never half of one.

The data goes to a temporary file (in ``tmp_dir`` or beside the target, always on the same file system),
is flushed with fsync, renamed over the target (on Windows, again for a moment while another program has
the target open), and the folder is synced. :func:`write_all` does the same for many files at once, their
syncs together.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

WRITERS = 8
"""Syncs :func:`write_all` waits for at once. The file system serves fsyncs that wait together with one
journal commit, so they cost little more than one."""

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
        _write_tmp(tmp, data, mode)
        _flush_file(tmp)
        replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_dir(path.parent)


def write_all(
    items: Sequence[tuple[Path, bytes | bytearray]], *, tmp_dir: Path, mode: int = 0o600
) -> list[OSError | None]:
    """Replace each ``(path, data)`` as :func:`atomic_write` does, each file atomically and durably, with
    the syncs of all of them done together: every file's data goes to its temporary file, then every
    temporary file is flushed (up to :data:`WRITERS` at once), then each is renamed over its target, then
    each target's folder is synced (once per folder). No target is renamed before every file's data is on
    disk, so a kill or a crash anywhere leaves each target old or new, never half; the temporary files of
    a killed call are named as :func:`atomic_write`'s (:func:`tmp_prefix`).

    Returns:
        Per item, None when it was replaced, or the ``OSError`` that stopped it (before its rename: the
        target is unchanged; while syncing its folder: replaced, perhaps not yet durably).
    """
    results: list[OSError | None] = [None] * len(items)
    tmps = [tmp_dir / f"{tmp_prefix(path)}{uuid.uuid4().hex}.tmp" for path, _ in items]
    left = set(range(len(items)))  # temporary files that may exist (not renamed)
    try:
        for index, (_, data) in enumerate(items):
            try:
                _write_tmp(tmps[index], data, mode)
            except OSError as exc:
                results[index] = exc
        with ThreadPoolExecutor(
            max_workers=max(1, min(WRITERS, len(items))), thread_name_prefix="memtray-sync-files"
        ) as pool:
            pending = [i for i, r in enumerate(results) if r is None]
            for index, failed in zip(
                pending, _each(pool, _flush_file, [tmps[i] for i in pending]), strict=True
            ):
                results[index] = failed
            for index, (path, _) in enumerate(items):
                if results[index] is None:
                    try:
                        replace(tmps[index], path)
                        left.discard(index)
                    except OSError as exc:
                        results[index] = exc
            folders = sorted({path.parent for (path, _), r in zip(items, results, strict=True) if r is None})
            synced = dict(zip(folders, _each(pool, sync_dir, folders), strict=True))
            for index, (path, _) in enumerate(items):
                if results[index] is None:
                    results[index] = synced[path.parent]
    finally:
        for index in left:  # failed before its rename, or the call was interrupted
            try:
                tmps[index].unlink(missing_ok=True)
            except OSError:
                pass
    return results


def _write_tmp(tmp: Path, data: bytes | bytearray, mode: int) -> None:
    """Write ``data`` to a new file ``tmp`` (not flushed)."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, mode)
    try:
        with memoryview(data) as whole:
            view = whole
            while view:
                written = os.write(fd, view)
                view = view[written:]
            del view
    finally:
        os.close(fd)


def _flush_file(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | O_BINARY)
    try:
        _flush(fd)
    finally:
        os.close(fd)


def _each(
    pool: ThreadPoolExecutor, work: Callable[[Path], None], items: Sequence[Path]
) -> list[OSError | None]:
    """``work(item)`` for every item in the pool; per item None, or the ``OSError`` it raised."""

    def attempt(item: Path) -> OSError | None:
        try:
            work(item)
        except OSError as exc:
            return exc
        return None

    if len(items) <= 1:
        return [attempt(item) for item in items]
    return list(pool.map(attempt, items))


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
