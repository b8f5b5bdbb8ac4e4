"""File-system errors in words: an ``OSError`` from writing memtray's files becomes a StorageError.

SQLite's errors are translated in :mod:`engine.storage.store`; this does the same for history.json, summaries and
other files, so a full disk or a read-only folder reaches the user as one sentence, never a traceback.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager

from engine.errors import StorageError

_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}


def storage_error(exc: OSError, what: str) -> StorageError:
    """The StorageError that explains ``exc``, raised while writing ``what`` (e.g. "history.json")."""
    if exc.errno in _FULL:
        return StorageError(f"the disk is full: memtray could not save {what}")
    if exc.errno in _DENIED:
        return StorageError(f"memtray may not write {what} ({exc.strerror})")
    return StorageError(f"memtray could not write {what} ({exc.strerror or exc})")


@contextmanager
def file_errors(what: str) -> Iterator[None]:
    """Translate an ``OSError`` raised in the block into a StorageError about ``what``."""
    try:
        yield
    except OSError as exc:
        raise storage_error(exc, what) from exc
