"""Per-session locks that hold across threads and across processes.

The tray app, a CLI and the MCP server may all write to one session at once. Every change to a session's
files takes its lock: a process-local re-entrant lock (threads) plus an OS file lock on
``<home>/.store/locks/<name>.lock`` (processes). The name is a session id, or ``<job>~<session>`` for a
job's own lock on a session (:func:`job_name`; ``~`` never occurs in a session id). A lock held longer
than the timeout raises :class:`~engine.errors.StoreLocked` rather than hanging forever.

A batch (an import, a sync join: a lock per session, most of them uncontended) takes its locks with
:meth:`SessionLocks.hold_all`: each file lock first by one non-blocking ``flock`` of the file, the very lock
the file lock library takes on POSIX (so it excludes every other holder alike), and through the library,
waiting, only when that fails (held elsewhere, or a file system without ``flock``).

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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

try:
    import fcntl
except ImportError:  # Windows: the file lock library's own locking only
    fcntl = None  # type: ignore[assignment]

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
        self._threads: dict[str, threading.RLock] = {}  # the thread locks of names taken by hold_all only
        self._flocked: dict[str, int] = {}  # name -> descriptor of a file lock taken by a plain flock
        self._depth = threading.local()

    def _pair(self, name: str) -> tuple[threading.RLock, FileLock]:
        with self._guard:
            pair = self._locks.get(name)
            if pair is None:
                pair = (
                    self._threads.pop(name, None) or threading.RLock(),
                    FileLock(self._dir / f"{name}.lock", mode=0o600, thread_local=False),
                )
                self._locks[name] = pair
            return pair

    def _thread_lock(self, name: str) -> threading.RLock:
        """The thread lock of ``name``, without making its file lock object (a batch's fast path)."""
        with self._guard:
            pair = self._locks.get(name)
            if pair is not None:
                return pair[0]
            lock = self._threads.get(name)
            if lock is None:
                lock = self._threads[name] = threading.RLock()
            return lock

    def _counts(self) -> dict[str, int]:
        counts: dict[str, int] = self._depth.__dict__.setdefault("counts", {})
        return counts

    @contextmanager
    def hold(self, name: str) -> Iterator[None]:
        """Hold the lock called ``name`` (a session id, or a :func:`job_name`) for the block; re-entrant."""
        thread_lock, file_lock = self._pair(name)
        if not thread_lock.acquire(timeout=self._timeout):
            raise _busy(name)
        depth = self._counts()
        try:
            if depth.get(name, 0) == 0:
                _acquire(file_lock, self._timeout, name)
            depth[name] = depth.get(name, 0) + 1
            try:
                yield
            finally:
                depth[name] -= 1
                if depth[name] == 0:
                    self._release_file(name, file_lock)
        finally:
            thread_lock.release()

    @contextmanager
    def hold_all(self, names: Iterable[str], *, wait: bool = True) -> Iterator[None]:
        """Hold every lock of ``names`` for the block, taken in sorted order (so batches never deadlock);
        re-entrant, and the same locks as :meth:`hold`: an uncontended file lock is taken by one
        non-blocking ``flock`` of its file (:func:`_flock_now`), a contended one through :meth:`hold`'s
        path, waiting up to the timeout. ``wait=False``: a lock held elsewhere raises ``StoreLocked`` at
        once, none taken (for a caller that holds other locks: it lets them go first, then waits)."""
        taken: list[tuple[str, threading.RLock]] = []
        depth = self._counts()
        timeout = self._timeout if wait else 0.0
        try:
            for name in sorted(set(names)):
                thread_lock = self._thread_lock(name)
                if not (
                    thread_lock.acquire(timeout=timeout) if wait else thread_lock.acquire(blocking=False)
                ):
                    raise _busy(name)
                try:
                    if depth.get(name, 0) == 0:
                        fd = _flock_now(self._dir / f"{name}.lock")
                        if fd is None:
                            _acquire(self._pair(name)[1], timeout, name)
                        else:
                            self._flocked[name] = fd
                    depth[name] = depth.get(name, 0) + 1
                except BaseException:
                    thread_lock.release()
                    raise
                taken.append((name, thread_lock))
            yield
        finally:
            for name, thread_lock in reversed(taken):
                try:
                    depth[name] -= 1
                    if depth[name] == 0:
                        self._release_file(name, None)
                finally:
                    thread_lock.release()

    def _release_file(self, name: str, file_lock: FileLock | None) -> None:
        """Release ``name``'s file lock, however it was taken (by this thread, which holds its thread lock)."""
        fd = self._flocked.pop(name, None)
        if fd is not None:
            _unflock(fd)
        else:
            (file_lock or self._pair(name)[1]).release()

    def forget(self, name: str) -> None:
        """Drop the lock object of a removed session."""
        with self._guard:
            pair = self._locks.get(name)
            if pair is not None and pair[0].acquire(blocking=False):
                try:
                    if not pair[1].is_locked and name not in self._flocked:
                        del self._locks[name]
                finally:
                    pair[0].release()
            lock = self._threads.get(name)
            if lock is not None and lock.acquire(blocking=False):
                try:
                    if name not in self._flocked:
                        del self._threads[name]
                finally:
                    lock.release()

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
            if name in self._flocked:  # held by this thread (hold_all): deleted as a re-entered lock is
                return _unlink(Path(file_lock.lock_file))
            try:
                _acquire(file_lock, 0, name)
            except (StoreLocked, OSError):  # held elsewhere, or a folder memtray may not write
                return 0
            try:
                deleted = _unlink(Path(file_lock.lock_file))
            finally:
                file_lock.release()
        finally:
            thread_lock.release()
        if deleted:
            self.forget(name)
        return deleted


def _busy(name: str) -> StoreLocked:
    """The error of a lock another task of this process holds."""
    return StoreLocked(f"session {session_of(name)} is busy in another task; try again in a moment")


def _unlink(path: Path) -> int:
    """Delete a lock file its deleter holds; 1 if deleted."""
    try:
        path.unlink(missing_ok=True)
    except OSError:  # Windows: an open file cannot be deleted; a read-only folder
        return 0
    return 1


def _flock_now(path: Path) -> int | None:
    """The descriptor of ``path`` (made if missing) locked by a non-blocking ``flock``, the lock the file
    lock library takes on POSIX; None when that cannot be had at once (another holder, a file system
    without ``flock``, a file memtray may not open, Windows): then the library takes it, waiting, or
    says why not. As :func:`_acquire`, a file deleted meanwhile is not a lock: tried again."""
    if fcntl is None or os.name != "posix":
        return None
    for _ in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            mine = os.fstat(fd)
        except OSError:
            os.close(fd)
            return None
        try:
            there = path.stat()
        except FileNotFoundError:
            there = None
        except OSError:
            os.close(fd)
            return None
        if there is not None and (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
            return fd
        os.close(fd)  # the file was deleted while we locked it (a session removed): its lock is no lock
    return None


def _unflock(fd: int) -> None:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


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
