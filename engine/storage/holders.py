"""Who holds the memory open: a lock file per open memory, and a gate that stops new ones (for repair).

Every program that opens a home's memory (the tray app, ``memtray mcp``, the daemon, a CLI command)
holds an OS file lock on a file of its own, ``<home>/.store/holders/<pid>-<random>.lock``, until it
closes the memory. A repair must be alone: :meth:`Holders.alone` takes the gate
(``<home>/.store/holders.gate``), which every opener takes briefly while it registers, so no program
opens the memory while the repair runs, and then tries each holder's lock: one it cannot take is a live
program (:class:`~engine.errors.MemoryInUse`, in one sentence); one it can take is a file a killed
program left behind, and is deleted. So no program has the database open when a repair moves it aside,
and no acknowledged write can land in the file that is moved.

A home memtray may not write (a read-only folder) still opens for reading: without a lock file, since
such a home cannot be repaired either.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from engine.errors import MemoryInUse

log = logging.getLogger("memtray.locks")

GATE_TIMEOUT = 60.0
"""How long an opener waits for a repair that holds the gate (a repair of a large archive takes a while)."""


class Hold:
    """One program's hold on the memory; :meth:`release` when the memory closes."""

    def __init__(self, lock: FileLock | None) -> None:
        self._lock = lock

    def release(self) -> None:
        if self._lock is None:
            return
        lock, self._lock = self._lock, None
        path = Path(lock.lock_file)
        try:
            path.unlink(missing_ok=True)  # while still locked: no other program takes it meanwhile
        except OSError:
            pass
        lock.release()


class Holders:
    """The holder files of one home (``store_dir``: its ``.store`` folder)."""

    def __init__(self, store_dir: Path) -> None:
        self._dir = store_dir / "holders"
        self._gate_path = store_dir / "holders.gate"

    @contextlib.contextmanager
    def gate(self, timeout: float = GATE_TIMEOUT) -> Iterator[bool]:
        """Hold the gate for the block; yields False when the home cannot be written (nothing is held).

        Raises:
            MemoryInUse: a repair held the gate longer than ``timeout``.
        """
        try:
            self._dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock = FileLock(self._gate_path, mode=0o600, thread_local=False)
            lock.acquire(timeout=timeout)
        except Timeout as exc:
            raise MemoryInUse(
                "a repair of the memory is running in another program; try again when it has finished"
            ) from exc
        except OSError as exc:  # a read-only home: nobody can repair it either
            log.debug("the memory's holder files cannot be written (%s): opened without one", exc)
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    def register(self) -> Hold:
        """A hold on the memory for this program (call inside :meth:`gate`)."""
        path = self._dir / f"{os.getpid()}-{secrets.token_hex(6)}.lock"
        lock = FileLock(path, mode=0o600, thread_local=False)
        try:
            lock.acquire(timeout=0)
        except (Timeout, OSError) as exc:
            log.debug("no holder file for this program (%s)", exc)
            return Hold(None)
        return Hold(lock)

    def others(self) -> int:
        """How many other programs hold the memory now (call inside :meth:`gate`); stale files are deleted."""
        try:
            found = sorted(self._dir.glob("*.lock"))
        except OSError:
            return 0
        held = 0
        for path in found:
            lock = FileLock(path, mode=0o600, thread_local=False)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                held += 1
                continue
            except OSError:
                continue
            try:
                path.unlink(missing_ok=True)  # left behind by a program that was killed
            except OSError:
                pass
            finally:
                lock.release()
        return held

    @contextlib.contextmanager
    def alone(self, what: str) -> Iterator[None]:
        """The gate held and no other program holding the memory, for the block (``what``: the work).

        Raises:
            MemoryInUse: another program holds the memory, or another repair runs.
        """
        with self.gate(timeout=5.0):
            others = self.others()
            if others:
                raise MemoryInUse(
                    f"{others} other program(s) have this memory open (the tray app, 'memtray mcp', a daemon "
                    f"or another command); close them, then run {what} again"
                )
            yield
