"""Watching the sync folder: another device's new segment asks for a sync within seconds.

:class:`FolderWatch` follows ``<folder>/memtray/`` with a file watcher (``watchdog``: inotify on Linux,
FSEvents on macOS, ReadDirectoryChangesW on Windows). An event counts only when it names a whole file of
ANOTHER device that carries data: a segment or a snapshot under its exact name (:mod:`engine.sync.folder`),
not empty, whether it was created, written or renamed into place. This device's own writes, temporary
names (``.memtray-tmp-…``, ``.syncthing.….tmp``, ``~$…``), conflict copies and zero-length files never
count, and neither do manifests: every device rewrites its own at each sync (its time is the device's
sign of life), so two watching devices that synced on each other's manifest would answer each other
forever; a manifest carries nothing to apply, and the timer reads it.

Counted events are coalesced: ``on_change`` is called (on the watch's own thread) once the folder has been
quiet for :data:`QUIET_S` after one, and at most :data:`LONGEST_S` after the first of a burst, so 50
segments arriving together lead to one or two syncs. ``on_change`` must only hand the work over (to the
store worker); the watch never touches the database.

The watch is no promise: a network share tells no events, an inotify limit or a missing folder stops it
from starting. Then :attr:`FolderWatch.error` says why (logged once per reason) and the timer of the
tray app and ``memtray daemon`` goes on syncing every minute. While it runs, the watch holds a lock file
so that ``memtray sync status`` in another process can tell that a program watches the folder.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from engine.sync import folder as layout

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent

log = logging.getLogger("memtray.sync.watch")

QUIET_S = 1.5
"""How long the folder must be quiet after a counted event before ``on_change`` is called."""
LONGEST_S = 10.0
"""The longest wait after the first counted event of a burst that does not stop."""


def counts(path: str, root: str, me: str) -> bool:
    """Whether a file event at ``path`` names a whole segment or snapshot of another device under
    ``root`` (``<folder>/memtray``): its exact name, in a device's folder that is not ``me``'s, not empty."""
    parent, name = os.path.split(path)
    top, device = os.path.split(parent)
    if os.path.normcase(top) != os.path.normcase(root) or device == me or not layout.DEVICE.match(device):
        return False
    if not (layout.SEGMENT.match(name) or layout.SNAPSHOT.match(name)):
        return False
    try:
        return Path(path).stat().st_size > 0
    except OSError:  # gone again (a sync engine replacing it): a later event tells
        return False


def lock_path(locks_dir: Path) -> Path:
    """The lock file a running watch holds (``memtray sync status`` tries it)."""
    return locks_dir / "sync-watch.lock"


def watched_elsewhere(locks_dir: Path) -> bool:
    """Whether another program (the tray app, ``memtray daemon``) watches this home's sync folder now."""
    lock = FileLock(str(lock_path(locks_dir)), thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:
        return False
    lock.release()
    return False


class FolderWatch:
    """Watches one sync folder for other devices' segments; see the module."""

    def __init__(
        self,
        on_change: Callable[[], None],
        locks_dir: Path,
        *,
        quiet: float = QUIET_S,
        longest: float = LONGEST_S,
    ) -> None:
        self._on_change = on_change
        self._lock = FileLock(str(lock_path(locks_dir)), thread_local=False)
        self._quiet, self._longest = quiet, longest
        self._observer: Any = None
        self._watching = ("", "")  # (folder, this device) the observer follows
        self.error = ""
        """Why the folder is not watched ("" when it is, or when sync is off)."""
        self._said = ""
        self._cond = threading.Condition()
        self._first: float | None = None
        self._last = 0.0
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="memtray-sync-watch", daemon=True)
        self._thread.start()
        self.events = 0
        """Counted events so far (for tests and the log)."""
        self.calls = 0
        """How often ``on_change`` was called."""

    @property
    def active(self) -> bool:
        """Whether a folder is being watched now."""
        return self._observer is not None and self._observer.is_alive()

    def follow(self, folder: str, device: str) -> None:
        """Watch ``folder`` for devices other than ``device`` (start, restart after a stop, or move to
        another folder); ``folder == ""`` (sync off) stops watching. Called on the store worker, where the
        sync job runs; it reads the folder (a recursive watch lists it) but never the database."""
        if self._closed:
            return
        wanted = (folder, device) if folder else ("", "")
        if wanted == self._watching and (self.active or not folder):
            return
        self._stop_observer()
        if not folder:
            self._set_error("")
            return
        try:
            self._start_observer(folder, device)
        except Exception as exc:  # an inotify limit, a folder gone, no watcher for this file system
            self._stop_observer()
            self._set_error(f"cannot watch {layout.root(Path(folder))}: {_words(exc)}")
            return
        self._watching = wanted
        self._set_error("")
        log.info("watching %s for other devices' segments", layout.root(Path(folder)))

    def close(self) -> None:
        """Stop watching for good (the program quits or lets go of the memory)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._stop_observer()

    # -- the observer -----------------------------------------------------------------------------

    def _start_observer(self, folder: str, device: str) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        root = str(layout.root(Path(folder)))
        if not Path(root).is_dir():
            raise FileNotFoundError("it is not there (is the drive or share mounted?)")
        watch = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.is_directory or event.event_type not in ("created", "modified", "moved", "closed"):
                    return
                path = event.dest_path if event.event_type == "moved" else event.src_path
                if counts(os.fsdecode(path), root, device):
                    watch._poke()

        self._lock.acquire(timeout=0)  # another program of this home watches already: it raises
        observer = Observer()
        observer.daemon = True
        observer.schedule(Handler(), root, recursive=True)
        self._observer = observer
        observer.start()

    def _stop_observer(self) -> None:
        observer, self._observer, self._watching = self._observer, None, ("", "")
        if observer is not None:
            try:
                observer.stop()
                if observer.is_alive():
                    observer.join(timeout=2.0)
            except Exception:
                log.exception("the folder watch did not stop cleanly")
        if self._lock.is_locked:
            self._lock.release(force=True)

    def _set_error(self, error: str) -> None:
        self.error = error
        if error and error != self._said:
            log.warning("sync: %s; syncing on the timer only", error)
        elif not error and self._said:
            log.info("sync: the folder is watched again")
        self._said = error

    # -- coalescing -------------------------------------------------------------------------------

    def _poke(self) -> None:
        """A counted event (on the observer's thread)."""
        with self._cond:
            now = time.monotonic()
            self.events += 1
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    if self._first is None:
                        self._cond.wait()
                        continue
                    due = min(self._last + self._quiet, self._first + self._longest)
                    left = due - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                if self._closed:
                    return
                self._first = None
                self.calls += 1
            try:
                self._on_change()
            except Exception:
                log.exception("the folder watch could not ask for a sync")


def _words(exc: BaseException) -> str:
    if isinstance(exc, Timeout):
        return "another program of this home watches it already"
    if isinstance(exc, OSError) and exc.errno is not None and exc.strerror:
        if exc.errno == 28:  # ENOSPC from inotify_add_watch: the per-user limit of watches
            return "the system's limit of watched folders is reached (fs.inotify.max_user_watches)"
        if exc.errno == 24:  # EMFILE from inotify_init: the per-user limit of watchers
            return "the system's limit of file watchers is reached (fs.inotify.max_user_instances)"
        return exc.strerror
    return str(exc) or type(exc).__name__
