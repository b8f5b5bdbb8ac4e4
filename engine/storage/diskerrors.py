"""File-system errors in words: an ``OSError`` from writing memtray's files becomes a StorageError.

SQLite's errors are translated in :mod:`engine.storage.store` (which asks :func:`folder_fault` what is
wrong with the database's folder when SQLite only says "disk I/O error" or "readonly"); this does the
same for history.json, summaries and other files, so a full disk or a read-only folder reaches the user
as one sentence that says what to do, never a traceback.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import StorageError

_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_READ_ONLY = {errno.EROFS}
_DENIED = {errno.EACCES, errno.EPERM}
FULL_BELOW = 64 * 1024
"""A folder with less free space than this counts as on a full disk (SQLite needs a few pages)."""
CHOOSE_HOME = "choose another home with --home or MEMTRAY_HOME"


def disk_full(what: str) -> StorageError:
    return StorageError(f"the disk is full: memtray could not save {what}; free some space and try again")


def read_only(where: str) -> StorageError:
    return StorageError(
        f"memtray cannot write to {where}: the file system is read-only; make it writable or {CHOOSE_HOME}"
    )


def denied(where: str) -> StorageError:
    return StorageError(
        f"memtray cannot write to {where}: permission denied; check its permissions or {CHOOSE_HOME}"
    )


def storage_error(exc: OSError, what: str) -> StorageError:
    """The StorageError that explains ``exc``, raised while writing ``what`` (e.g. "history.json")."""
    where = str(exc.filename) if exc.filename else what
    if exc.errno in _FULL:
        return disk_full(what)
    if exc.errno in _READ_ONLY:
        return read_only(where)
    if exc.errno in _DENIED:
        return denied(where)
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return StorageError(
            f"memtray cannot use {where}: a file is where a folder should be; move it away or {CHOOSE_HOME}"
        )
    return StorageError(f"memtray could not write {what} ({exc.strerror or exc})")


def folder_fault(folder: Path, what: str) -> StorageError | None:
    """What keeps memtray from writing in ``folder`` (read-only, not permitted, full), or None."""
    try:
        if os.name == "posix" and os.statvfs(folder).f_flag & os.ST_RDONLY:
            return read_only(str(folder))
        if not os.access(folder, os.W_OK):
            return denied(str(folder))
        if shutil.disk_usage(folder).free < FULL_BELOW:
            return disk_full(what)
    except OSError:
        return None
    return None


@contextmanager
def file_errors(what: str) -> Iterator[None]:
    """Translate an ``OSError`` raised in the block into a StorageError about ``what``."""
    try:
        yield
    except OSError as exc:
        raise storage_error(exc, what) from exc
