"""Per-session locks that hold across threads and across processes.

The tray app, a CLI and the MCP server may all write to one session at once. Every change to a session's
files takes its lock: a process-local re-entrant lock (threads) plus an OS file lock on
``<home>/.store/locks/<name>.lock`` (processes). The name is a session id, or ``<job>~<session>`` for a
job's own lock on a session (:func:`job_name`; ``~`` never occurs in a session id). A lock held longer
than the timeout raises :class:`~engine.errors.StoreLocked` rather than hanging forever.

A removed session's lock files are deleted (:meth:`SessionLocks.remove_files`), and so are those of
sessions that no longer exist when a home is opened (:meth:`SessionLocks.remove_stale`). A lock file is
only deleted by the process holding its lock, and whoever acquires a lock checks that its file is still
the one at the path (and tries again if it was deleted meanwhile), so a deletion never lets two
processes hold the same lock.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from engine.errors import StoreLocked

log = logging.getLogger("memtray.locks")

DEFAULT_TIMEOUT = 60.0
JOB_SEPARATOR = "~"


def job_name(job: str, session: str) -> str:
    """The lock name of ``job``'s own lock on ``session`` (e.g. the summarizer's)."""
    return f"{job}{JOB_SEPARATOR}{session}"


def session_of(name: str) -> str:
    """The session a lock name belongs to (the name itself for a session's lock)."""
    return name.rsplit(JOB_SEPARATOR, 1)[-1]


class SessionLocks:
    """The lock table of one home folder."""

    def __init__(self, locks_dir: Path, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._dir = locks_dir
        self._timeout = timeout
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.RLock, FileLock]] = {}
        self._depth = threading.local()

    def _pair(self, name: str) -> tuple[threading.RLock, FileLock]:
        with self._guard:
            pair = self._locks.get(name)
            if pair is None:
                pair = (
                    threading.RLock(),
                    FileLock(self._dir / f"{name}.lock", mode=0o600, thread_local=False),
                )
                self._locks[name] = pair
            return pair

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        """Hold the lock called ``name`` (a session id, or a :func:`job_name`) for the block; re-entrant."""
        thread_lock, file_lock = self._pair(name)
        if not thread_lock.acquire(timeout=self._timeout):
            raise StoreLocked(f"session {session_of(name)} is busy in another task; try again in a moment")
        depth: dict[str, int] = self._depth.__dict__.setdefault("counts", {})
        try:
            if depth.get(name, 0) == 0:
                _acquire(file_lock, self._timeout, name)
            depth[name] = depth.get(name, 0) + 1
            try:
                yield
            finally:
                depth[name] -= 1
                if depth[name] == 0:
                    file_lock.release()
        finally:
            thread_lock.release()

    def forget(self, name: str) -> None:
        """Drop the lock object of a removed session."""
        with self._guard:
            pair = self._locks.get(name)
            if pair is not None and pair[0].acquire(blocking=False):
                try:
                    if not pair[1].is_locked:
                        del self._locks[name]
                finally:
                    pair[0].release()

    def remove_files(self, session: str) -> None:
        """Delete the lock files of a removed session (its own and its jobs'), each while holding it.

        A lock another program holds now is left alone (its file goes with the next cleanup).
        """
        for path in self._files(lambda owner: owner == session):
            self._remove(path.name[: -len(".lock")])

    def remove_stale(self, exists: Callable[[str], bool]) -> int:
        """Delete the lock files of sessions for which ``exists(session)`` is False; return how many."""
        removed = 0
        for path in self._files(lambda owner: not exists(owner)):
            removed += self._remove(path.name[: -len(".lock")])
        if removed:
            log.info("removed %d lock files of sessions that no longer exist", removed)
        return removed

    def _files(self, wanted: Callable[[str], bool]) -> list[Path]:
        """The lock files whose session ``wanted`` picks (one listing; a Path only for those picked)."""
        try:
            with os.scandir(self._dir) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(".lock"))
        except OSError:
            return []
        return [self._dir / name for name in names if wanted(session_of(name[: -len(".lock")]))]

    def _remove(self, name: str) -> int:
        """Delete one lock file while holding its lock (without waiting); 1 if it was deleted."""
        thread_lock, file_lock = self._pair(name)
        if not thread_lock.acquire(blocking=False):
            return 0
        try:
            try:
                _acquire(file_lock, 0, name)
            except (StoreLocked, OSError):  # held elsewhere, or a folder memtray may not write
                return 0
            try:
                Path(file_lock.lock_file).unlink(missing_ok=True)
                deleted = 1
            except OSError:  # Windows: an open file cannot be deleted; a read-only folder
                deleted = 0
            finally:
                file_lock.release()
        finally:
            thread_lock.release()
        if deleted:
            self.forget(name)
        return deleted


def _acquire(file_lock: FileLock, timeout: float, name: str) -> None:
    """Acquire ``file_lock``, again if its file was deleted (by a session's removal) while waiting."""
    while True:
        try:
            file_lock.acquire(timeout=timeout)
        except Timeout as exc:
            raise StoreLocked(
                f"session {session_of(name)} is busy in another program; try again later"
            ) from exc
        if file_lock.lock_counter > 1 or _still_in_place(file_lock):  # re-entered: already checked
            return
        file_lock.release()


def _still_in_place(file_lock: FileLock) -> bool:
    """Whether the locked file is the one at the lock's path (not a file deleted while we waited)."""
    fd = getattr(getattr(file_lock, "_context", None), "lock_file_fd", None)
    if not isinstance(fd, int) or os.name != "posix":
        return True  # Windows cannot delete a file another process has open: nothing to check
    try:
        return os.fstat(fd).st_ino == Path(file_lock.lock_file).stat().st_ino
    except OSError:
        return False
