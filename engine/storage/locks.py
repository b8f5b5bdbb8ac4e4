"""Per-session locks that hold across threads and across processes.

The tray app, a CLI and the MCP server may all write to one session at once. Every change to a session's
files takes its lock: a process-local re-entrant lock (threads) plus an OS file lock on
``<home>/.store/locks/<id>.lock`` (processes). A lock held longer than the timeout raises
:class:`~engine.errors.StoreLocked` rather than hanging forever.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from engine.errors import StoreLocked

DEFAULT_TIMEOUT = 60.0


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
        """Hold the lock called ``name`` (a session id, or a named job) for the block; re-entrant."""
        thread_lock, file_lock = self._pair(name)
        if not thread_lock.acquire(timeout=self._timeout):
            raise StoreLocked(f"session {name} is busy in another task; try again in a moment")
        depth: dict[str, int] = self._depth.__dict__.setdefault("counts", {})
        try:
            if depth.get(name, 0) == 0:
                try:
                    file_lock.acquire(timeout=self._timeout)
                except Timeout as exc:
                    raise StoreLocked(f"session {name} is busy in another program; try again later") from exc
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
        """Drop the lock object of a removed session (as the original does on reset)."""
        with self._guard:
            pair = self._locks.get(name)
            if pair is not None and pair[0].acquire(blocking=False):
                try:
                    if not pair[1].is_locked:
                        del self._locks[name]
                finally:
                    pair[0].release()
