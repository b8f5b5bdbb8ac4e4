"""``memtray sync``: :class:`Sync` sets a device up on a shared folder, writes what is new here, applies
what the other devices wrote, and says where it stands."""

from __future__ import annotations

import logging
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from engine.clock import Clock
from engine.errors import EngineError, StoreLocked, SyncError
from engine.llm.keys import Keys
from engine.sessions import identity, tombkeys
from engine.storage.store import Store
from engine.sync import crypto, errorrecords, export, gcpause, pack, sharedsettings, state, summaries, tombkey
from engine.sync import folder as layout
from engine.sync.apply import Applied, Target, apply_segment, order_sessions
from engine.sync.keystore import SyncKeys
from engine.sync.segment import (
    Manifest,
    NewerFormat,
    Segment,
    decode,
    decode_manifest,
    encode,
    encode_manifest,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.sync.watch import FolderWatch

log = logging.getLogger("memtray.sync")

LOCK_TIMEOUT_S = 60.0
NO_KEY = (
    "this device has no key for the sync folder: run `memtray sync enable FOLDER` again, or pass "
    "--passphrase-stdin"
)


@dataclass
class DeviceStatus:
    """Another device as seen here: its name, its last segment, how far this device applied it."""

    device: str
    name: str
    written: int
    applied: int
    waiting: str = ""
    applied_at: int = 0
    """When this device last applied one of its segments (Unix ns; 0: never)."""

    @property
    def pending(self) -> int:
        return max(0, self.written - self.applied)


@dataclass
class SyncStatus:
    enabled: bool
    folder: str = ""
    device: str = ""
    name: str = ""
    key: str = "none"
    written: int = 0
    unsent: int = 0
    devices: list[DeviceStatus] = field(default_factory=list)
    last_sync: int = 0
    """When ``sync now`` last finished here (Unix ns; 0: never)."""
    last_error: str = ""
    """Why the last ``sync now`` failed, in the engine's words ("" when it did not)."""
    watching: bool = False
    """Whether a program (the tray app, ``memtray daemon``) watches the folder, syncing within seconds
    of another device's new segment; else only its one-minute timer (or ``sync now``) syncs."""
    watch_error: str = ""
    """Why that program could not watch the folder ("" when it could, or when none runs)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for entry, device in zip(data["devices"], self.devices, strict=True):
            entry["pending"] = device.pending
        return data


@dataclass
class SyncReport:
    """What one ``sync now`` did."""

    segments_written: int = 0
    messages_sent: int = 0
    changes_sent: int = 0
    summaries_sent: int = 0
    segments_applied: int = 0
    packed: int = 0
    removed: int = 0
    applied: Applied = field(default_factory=Applied)
    waiting: list[str] = field(default_factory=list)

    def describe(self) -> str:
        a = self.applied
        parts = [
            f"sent {self.messages_sent} messages and {self.changes_sent} changes in {self.segments_written} segments",
            f"applied {self.segments_applied} segments: {a.messages} new messages ({a.present} known), "
            f"{a.forgotten} deleted, {a.titles} titles, {a.errors_changed} error records, "
            f"{a.summaries} summaries, {a.settings} settings",
        ]
        return "; ".join(parts) + "".join(f"\n{w}" for w in self.waiting + a.errors)


class Sync:
    """The sync of one memory (``mem.sync``)."""

    def __init__(self, store: Store, target: Target, clock: Clock, keys: Keys, lock_path: Path) -> None:
        self._store = store
        self._target = target
        self._clock = clock
        self.keys = SyncKeys(keys)
        self._lock = FileLock(str(lock_path))
        self._locks_dir = lock_path.parent
        self.watch: FolderWatch | None = None
        """The folder watch of this program (:meth:`watch_folder`), None in a program that does not watch."""

    # -- setting up -------------------------------------------------------------------------------

    def enable(self, folder: Path | str, passphrase: str, name: str | None = None) -> SyncStatus:
        """Use ``folder`` (kept in step by another program) for this memory: the first device sets the
        passphrase, the others give the same one. The key goes to the OS keyring (or is held for this run
        when there is none: ``status().key`` says which).

        Raises:
            SyncError: the folder does not exist or cannot be written.
            WrongPassphrase: the folder was set up with another passphrase.
        """
        path = self._existing(folder)
        config = crypto.read_config(path)
        joining = config is not None
        if config is None:
            config, key = crypto.create(path, passphrase)
        else:
            key = crypto.unlock(config, passphrase)
        self.keys.store(config.folder_id, key)
        with self._store.read() as conn:
            before = state.get(conn, state.FOLDER_ID)
        if before not in ("", config.folder_id):
            self._retire(before)
        with self._store.write() as conn:
            if state.get(conn, state.FOLDER_ID) not in ("", config.folder_id):
                state.clear(conn)  # another folder than before: start over there
            state.put(conn, state.FOLDER, str(path))
            state.put(conn, state.FOLDER_ID, config.folder_id)
            state.put(conn, state.NAME, (name or socket.gethostname() or "device").strip()[:80])
            if joining:  # the folder's shared settings replace this device's (sharedsettings)
                sharedsettings.joined(conn, identity.device_id(conn))
        self._write_manifest(path, key)
        log.info("sync enabled with folder %s", path)
        self.follow_folder()  # a program that watches (the tray app) watches the new folder at once
        return self.status()

    def is_set_up(self, folder: Path | str) -> bool:
        """Whether ``folder`` already holds a memtray sync (enabling joins it) or not (enabling creates it).

        Raises:
            SyncError: the folder does not exist, or its sync.json cannot be read.
        """
        return crypto.read_config(self._existing(folder)) is not None

    @staticmethod
    def _existing(folder: Path | str) -> Path:
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise SyncError(f"the sync folder {path} does not exist (create it, or choose the synced folder)")
        return path

    def unlock_for_this_run(self, passphrase: str) -> None:
        """Derive the folder's key from ``passphrase`` and hold it for this run only."""
        folder = self._folder()
        config = crypto.read_config(folder)
        if config is None:
            raise SyncError(f"{folder} holds no memtray sync.json: run `memtray sync enable` first")
        self.keys.use_for_this_run(config.folder_id, crypto.unlock(config, passphrase))

    def disable(self) -> bool:
        """Stop syncing: forget the folder, the cursors and the key (the folder's files stay; the tombstones
        and the folder's tombstone key stay, so what was forgotten stays out). False when sync was not
        enabled."""
        with self._store.read() as conn:
            folder_id = state.get(conn, state.FOLDER_ID)
        if folder_id:
            self._retire(folder_id)
        with self._store.write() as conn:
            folder_id, enabled = state.get(conn, state.FOLDER_ID), bool(state.get(conn, state.FOLDER))
            state.clear(conn)
        if folder_id:
            self.keys.delete(folder_id)
        self.follow_folder()  # and stops watching it
        return enabled

    def _retire(self, folder_id: str) -> None:
        """Keep the tombstone key of the folder being left beside the home's own, so its tombstones still
        keep their messages out of an import (:func:`engine.sessions.tombkeys.retire`)."""
        key = self.keys.get(folder_id)
        if key is not None:
            tombkeys.retire(self._target.paths, folder_id, tombkey.derive(key))

    @property
    def folder_id(self) -> str:
        """The public name of the folder's key ("" when sync is off)."""
        with self._store.read() as conn:
            return state.get(conn, state.FOLDER_ID)

    @property
    def enabled(self) -> bool:
        with self._store.read() as conn:
            return bool(state.get(conn, state.FOLDER))

    # -- syncing ----------------------------------------------------------------------------------

    def now(self) -> SyncReport:
        """Write what is new here, then apply what the other devices wrote.

        Raises:
            SyncError: sync is not enabled, the key is missing, or the folder cannot be written.
            StoreLocked: another program is syncing this memory for longer than a minute.
        """
        try:
            report = self._now()
        except EngineError as exc:
            self._note(error=str(exc) or type(exc).__name__)
            raise
        self._note(error="", at=self._clock())
        return report

    def _now(self) -> SyncReport:
        folder, key = self._folder(), self._key()
        try:
            # a large apply would stall the app's GUI thread on the garbage collector's walks
            with self._lock.acquire(timeout=LOCK_TIMEOUT_S), gcpause.paused():
                report = SyncReport()
                self._export(folder, key, report)
                self._apply(folder, key, report)
                order_sessions(self._store, self._target)
                self._pack(folder, key, report)
                self._write_manifest(folder, key)
                return report
        except Timeout as exc:
            raise StoreLocked("another program is syncing this memory; try again later") from exc

    def _note(self, error: str, at: int | None = None) -> None:
        """Keep the outcome of ``sync now`` for :meth:`status` (only while sync is enabled)."""
        try:
            with self._store.write() as conn:
                if not state.get(conn, state.FOLDER):
                    return
                state.put(conn, state.LAST_ERROR, error[:500])
                if at is not None:
                    state.put(conn, state.LAST_SYNC, at)
        except EngineError as exc:  # the outcome is a nicety; the sync's own error (if any) goes on
            log.warning("could not note the sync's outcome: %s", exc)

    def _export(self, folder: Path, key: bytes, report: SyncReport) -> None:
        me = self.device
        directory = layout.device_dir(folder, me)
        layout.remove_temporaries(directory)
        while True:
            with self._store.read() as conn:
                batch = export.collect(conn, me)
                shared = sharedsettings.collect(conn, self._clock())
                batch.changes += shared
                records, watermark = errorrecords.collect(conn, self._clock())
                told, scanned = summaries.collect(conn, self._target.paths, me)
                written = layout.segments(folder, me) | layout.segments(folder, me, layout.SNAPSHOT)
                # never a number used before, even after `sync disable` forgot the count
                seq = max(state.get_int(conn, state.NEXT_SEQ), 1, max(written, default=0) + 1)
                schema = str(conn.execute("SELECT MAX(name) FROM migrations").scalar_one())
            if batch.empty and not records and not told:
                with self._store.write() as conn:
                    export.commit(conn, me, batch, seq, self._clock())
                    summaries.commit(conn, me, told, scanned)
                return
            segment = Segment(
                me,
                seq,
                schema,
                self._clock(),
                batch.messages,
                changes=batch.changes,
                errors=records,
                summaries=told,
            )
            layout.write_atomically(directory / layout.segment_name(seq), encode(segment, key))
            with self._store.write() as conn:
                export.commit(conn, me, batch, seq + 1, self._clock())
                sharedsettings.commit(conn, me, shared)
                summaries.commit(conn, me, told, scanned)
                state.add_unordered(conn, {row[1] for row in batch.messages})
                state.put(conn, errorrecords.WATERMARK, watermark)
            report.segments_written += 1
            report.messages_sent += len(batch.messages)
            report.changes_sent += len(batch.changes)
            report.summaries_sent += len(told)
            if len(batch.messages) < export.MAX_MESSAGES:
                return

    def _apply(self, folder: Path, key: bytes, report: SyncReport) -> None:
        me = self.device
        with self._store.read() as conn:
            applied = state.applied(conn)
        for device in layout.devices(folder):
            if device == me:
                continue
            found = layout.segments(folder, device)
            seq = applied.get(device, 0) + 1
            snapshots = [s for s in layout.segments(folder, device, layout.SNAPSHOT) if s >= seq]
            if snapshots:  # the device packed what this one has not applied yet: one file for all of it
                done = self._apply_file(folder, key, device, max(snapshots), report, snapshot=True)
                if not done:
                    continue
                seq = max(snapshots) + 1
            while seq in found:
                if not self._apply_file(folder, key, device, seq, report):
                    break
                seq += 1
            later = [s for s in found if s > seq]
            if later and seq not in found:
                report.waiting.append(
                    f"waiting for segment {seq} of device {device} ({len(later)} after it arrived)"
                )

    def _apply_file(
        self, folder: Path, key: bytes, device: str, seq: int, report: SyncReport, *, snapshot: bool = False
    ) -> bool:
        """Apply one segment (or snapshot) of ``device``; False when it cannot be read yet."""
        name = layout.snapshot_name(seq) if snapshot else layout.segment_name(seq)
        what = f"{'snapshot' if snapshot else 'segment'} {seq} of device {device}"
        try:
            segment = decode(
                (layout.device_dir(folder, device) / name).read_bytes(), key, device, seq, snapshot=snapshot
            )
        except NewerFormat as exc:
            report.waiting.append(str(exc))
            return False
        except (SyncError, OSError):
            report.waiting.append(f"{what} is still arriving (or damaged)")
            return False
        tomb = (self.folder_id, tombkey.derive(key))
        report.applied.add(apply_segment(self._store, self._target, segment, self._clock(), tomb))
        report.segments_applied += 1
        return True

    def _pack(self, folder: Path, key: bytes, report: SyncReport) -> None:
        report.packed, report.removed = pack.pack(
            self._store, folder, key, self.device, self._clock(), self._target.paths
        )

    def _write_manifest(self, folder: Path, key: bytes) -> None:
        with self._store.read() as conn:
            manifest = Manifest(
                self.device,
                state.get(conn, state.NAME),
                max(state.get_int(conn, state.NEXT_SEQ) - 1, 0),
                self._clock(),
                state.applied(conn),
            )
        path = layout.device_dir(folder, manifest.device) / layout.MANIFEST
        layout.write_atomically(path, encode_manifest(manifest, key), replace=True)

    # -- watching the folder ------------------------------------------------------------------------

    def watch_folder(self, on_change: Callable[[], None]) -> FolderWatch:
        """Start this program's folder watch (the tray app and ``memtray daemon``; see
        :mod:`engine.sync.watch`): ``on_change`` is called on the watch's thread when another device's
        segments arrived, and must hand a sync over to the store worker. The watch follows the folder at
        each :meth:`follow_folder`."""
        from engine.sync.watch import FolderWatch

        if self.watch is None:
            self.watch = FolderWatch(on_change, self._locks_dir)
        return self.watch

    def follow_folder(self) -> None:
        """Point the folder watch at the folder in use now (none when sync is off), and note why it
        could not start for ``memtray sync status`` in other programs. Runs on the store worker."""
        if self.watch is None:
            return
        with self._store.read() as conn:
            folder, noted = state.get(conn, state.FOLDER), state.get(conn, state.WATCH_ERROR)
            me = identity.device_id(conn) if folder else ""
        self.watch.follow(folder, me)
        if self.watch.error != noted and folder:
            with self._store.write() as conn:
                state.put(conn, state.WATCH_ERROR, self.watch.error[:500])

    def stop_watching(self) -> None:
        """Stop the folder watch for good (the memory closes)."""
        if self.watch is not None:
            self.watch.close()

    # -- status -----------------------------------------------------------------------------------

    @property
    def device(self) -> str:
        """This home's device id (its folder's name under ``<folder>/memtray/``)."""
        with self._store.read() as conn:
            return identity.device_id(conn)

    def status(self) -> SyncStatus:
        """Where sync stands: the folder, this device, every other device seen and how far it is applied
        here. Reads the folder; never writes."""
        with self._store.read() as conn:
            folder, name, folder_id = (
                state.get(conn, state.FOLDER),
                state.get(conn, state.NAME),
                state.get(conn, state.FOLDER_ID),
            )
            written = max(state.get_int(conn, state.NEXT_SEQ) - 1, 0)
            applied = state.applied(conn)
            exported = state.get_int(conn, state.EXPORTED_ID)
            unsent = int(
                conn.execute(
                    "SELECT COUNT(*) FROM messages m WHERE m.id > ? "
                    "AND NOT EXISTS (SELECT 1 FROM sync_received r WHERE r.id = m.id)",
                    (exported,),
                ).scalar_one()
            )
            me = identity.device_id(conn)
            last_sync, last_error = state.get_int(conn, state.LAST_SYNC), state.get(conn, state.LAST_ERROR)
            applied_at = state.applied_times(conn)
            noted_watch_error = state.get(conn, state.WATCH_ERROR)
        if not folder:
            return SyncStatus(False, device=me)
        key = self.keys.get(folder_id)
        status = SyncStatus(
            True,
            folder,
            me,
            name,
            "present" if key else "missing",
            written,
            unsent,
            [],
            last_sync,
            last_error,
        )
        from engine.sync.watch import watched_elsewhere

        if (self.watch is not None and self.watch.active) or watched_elsewhere(self._locks_dir):
            status.watching = True  # by this program, or another of this home (the tray app, the daemon)
        else:
            status.watch_error = self.watch.error if self.watch is not None else noted_watch_error
        path = Path(folder)
        for device in layout.devices(path):
            if device == me:
                continue
            found = layout.segments(path, device) | layout.segments(path, device, layout.SNAPSHOT)
            entry = DeviceStatus(
                device,
                "",
                max(found, default=0),
                applied.get(device, 0),
                applied_at=applied_at.get(device, 0),
            )
            if key is not None:
                try:
                    blob = (layout.device_dir(path, device) / layout.MANIFEST).read_bytes()
                    entry.name = decode_manifest(blob, key, device).name
                except (OSError, SyncError):
                    entry.name = ""
            status.devices.append(entry)
        return status

    # -- helpers ----------------------------------------------------------------------------------

    def _folder(self) -> Path:
        with self._store.read() as conn:
            folder = state.get(conn, state.FOLDER)
        if not folder:
            raise SyncError("sync is not enabled: run `memtray sync enable FOLDER`")
        path = Path(folder)
        if not path.is_dir():
            raise SyncError(f"the sync folder {path} is not there (is the drive or share mounted?)")
        return path

    def _key(self) -> bytes:
        with self._store.read() as conn:
            folder_id = state.get(conn, state.FOLDER_ID)
        key = self.keys.get(folder_id)
        if key is None:
            raise SyncError(NO_KEY)
        return key
