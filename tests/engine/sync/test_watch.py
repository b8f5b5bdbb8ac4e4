"""The folder watch (real ``watchdog`` on real folders): another device's segment makes this device
apply within seconds with the timer set to an hour; a burst is coalesced; this device's own writes,
temporary names, partial downloads, conflict copies, zero-length files and manifests make no work; a
folder that cannot be watched is said once and the timer goes on."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import schedule

from engine import Memory, Message
from engine.jobs import add_maintenance
from engine.sync import folder as layout
from engine.sync.watch import FolderWatch, counts, watched_elsewhere
from tests.engine.sync.conftest import Homes
from tests.engine.sync.fakeengine import FakeEngine

PASS = "watch the folder"
HOUR = 60


def wait_until(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


class Watched:
    """Device A as the tray app and ``memtray daemon`` run it: its maintenance jobs on a scheduler that is
    never ticked (the timer would fire after an hour), one store worker, the folder watch; device B writes
    into its own copy of the folder, and a sync-engine double delivers B's files to A's copy."""

    def __init__(self, homes: Homes, base: Path) -> None:
        self.engine = FakeEngine(base / "folders", ["a", "b"])
        self.a, self.b = homes.open("a"), homes.open("b")
        self.a.sync.enable(self.engine.folder("a"), PASS, "desk")
        self.engine.owns("a", self.a.sync.device)
        self.engine.settle()
        self.b.sync.enable(self.engine.folder("b"), PASS, "laptop")
        self.engine.owns("b", self.b.sync.device)
        self.syncs = 0
        real = self.a.sync.now

        def counted() -> object:
            self.syncs += 1
            return real()

        self.a.sync.now = counted  # type: ignore[method-assign]
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-store")
        self.scheduler = schedule.Scheduler()
        add_maintenance(self.scheduler, self.a, self.worker.submit, sync_minutes=HOUR)
        self.idle()  # the sync at start made the watch, on the worker
        watch = self.a.sync.watch
        assert watch is not None
        self.watch: FolderWatch = watch
        assert wait_until(lambda: self.watch.active and self.syncs == 1), self.watch.error

    def write_on_b(self, text: str, count: int = 1) -> None:
        """B appends ``count`` messages, each sent in a segment of its own."""
        for i in range(count):
            self.b.append("from-b", [Message("user", f"{text} {i}")])
            self.b.sync.now()

    def idle(self) -> None:
        """Wait until A's worker has nothing left to do."""
        self.worker.submit(lambda: None).result(timeout=60)

    def close(self) -> None:
        self.worker.shutdown(wait=True)


@pytest.fixture
def watched(homes: Homes, tmp_path: Path) -> Iterator[Watched]:
    made = Watched(homes, tmp_path)
    yield made
    made.close()


def test_another_devices_segment_is_applied_within_seconds_without_the_timer(watched: Watched) -> None:
    watched.write_on_b("a note from the laptop")
    assert watched.a.search("laptop", match="keyword") == []
    started = time.monotonic()
    watched.engine.settle()
    assert wait_until(lambda: bool(watched.a.search("laptop", match="keyword")), timeout=20.0)
    took = time.monotonic() - started
    assert took < 15.0, f"applied {took:.1f} s after the segment arrived"
    watched.idle()
    assert watched.syncs == 2  # the one at start and the one the watch asked for
    next_timer = watched.scheduler.get_next_run("sync")
    assert next_timer is not None and next_timer - datetime.now() > timedelta(minutes=50)
    status = watched.a.sync.status()
    assert status.watching and status.watch_error == ""
    (laptop,) = status.devices
    assert laptop.applied == 1 and laptop.applied_at > 0


def test_a_burst_of_fifty_segments_leads_to_few_syncs(watched: Watched) -> None:
    watched.write_on_b("burst", count=50)
    assert len(layout.segments(watched.engine.folder("b"), watched.b.sync.device)) >= 50
    watched.engine.settle()

    def arrived() -> int:
        if not watched.a.exists("from-b"):
            return 0
        info = watched.a.session_info("from-b")
        return info.hot_messages + info.archived_messages

    assert wait_until(lambda: arrived() == 50, timeout=40.0), arrived()
    time.sleep(watched.watch._quiet + 1.0)
    watched.idle()
    assert 2 <= watched.syncs <= 4, f"{watched.syncs - 1} syncs for one burst of 50 segments"
    assert watched.watch.events >= 50


def test_own_writes_and_litter_make_no_work(watched: Watched) -> None:
    a_folder = watched.engine.folder("a")
    watched.a.append("mine", [Message("user", "written here")])
    watched.worker.submit(watched.a.sync.now).result(timeout=60)  # A's own segment and manifest
    assert layout.segments(a_folder, watched.a.sync.device)
    other = layout.device_dir(a_folder, watched.b.sync.device)
    other.mkdir(parents=True, exist_ok=True)
    whole = layout.segment_name(7)
    (other / f".syncthing.{whole}.tmp").write_bytes(b"partial download")
    (other / f"~${whole}").write_bytes(b"partial download")
    (other / f"{whole[:-4]}.sync-conflict-20261204-101010-ABCDEFG.mts").write_bytes(b"conflict")
    (other / f"{whole[:-4]} (conflicted copy).mts").write_bytes(b"conflict")
    (other / layout.segment_name(8)).write_bytes(b"")  # zero-length: still arriving
    (other / f"{layout.TMP_PREFIX}abc").write_bytes(b"temporary")
    (other / layout.MANIFEST).write_bytes(b"a manifest carries nothing to apply")
    time.sleep(watched.watch._quiet + 2.0)
    watched.idle()
    assert watched.watch.events == 0 and watched.watch.calls == 0
    assert watched.syncs == 2  # the one at start and the one this test ran


def test_which_events_count(tmp_path: Path) -> None:
    root = tmp_path / "memtray"
    me, other = "0123456789abcdef", "fedcba9876543210"
    for device in (me, other):
        (root / device).mkdir(parents=True)
    names = {
        layout.segment_name(1): True,
        layout.snapshot_name(64): True,
        layout.MANIFEST: False,
        f".syncthing.{layout.segment_name(2)}.tmp": False,
        f"{layout.segment_name(3)[:-4]}-1.mts": False,
        f"{layout.TMP_PREFIX}0a1b2c": False,
    }
    for name, expected in names.items():
        for device in (me, other):
            path = root / device / name
            path.write_bytes(b"x")
            assert counts(str(path), str(root), me) is (expected and device == other), (device, name)
    empty = root / other / layout.segment_name(4)
    empty.write_bytes(b"")
    assert not counts(str(empty), str(root), me)
    assert not counts(str(root / other / layout.segment_name(5)), str(root), me)  # gone already
    stray = tmp_path / "elsewhere" / other / layout.segment_name(1)
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"x")
    assert not counts(str(stray), str(root), me)


def test_a_folder_that_cannot_be_watched_is_said_once_and_the_timer_goes_on(
    homes: Homes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "usb"
    folder.mkdir()
    mem: Memory = homes.open("a")
    mem.sync.enable(folder, PASS, "desk")
    submitted: list[Callable[[], object]] = []
    scheduler = schedule.Scheduler()
    with caplog.at_level(logging.WARNING, logger="memtray.sync.watch"):
        add_maintenance(scheduler, mem, submitted.append, sync_minutes=1)
        shutil.rmtree(folder)  # the stick is pulled out
        for _ in range(3):
            submitted.pop()()  # the job at start, then the timer's
            scheduler.run_all()
    watch = mem.sync.watch
    assert watch is not None and not watch.active
    assert "cannot watch" in watch.error and "not there" in watch.error
    assert caplog.text.count("cannot watch") == 1
    assert [job for job in scheduler.jobs if "sync" in job.tags]  # the timer stays
    status = mem.sync.status()
    assert not status.watching and "cannot watch" in status.watch_error
    layout.root(folder).mkdir(parents=True)  # back: the next sync watches again
    submitted.pop()()
    assert watch.active and watch.error == "" and mem.sync.status().watch_error == ""
    assert watched_elsewhere(mem.paths.locks_dir)  # as another program sees it (the lock is held)
    mem.close()
    assert not watch.active and not watched_elsewhere(mem.paths.locks_dir)


def test_a_second_program_of_the_same_home_leaves_the_watch_to_the_first(
    homes: Homes, tmp_path: Path
) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    mem = homes.open("a")
    mem.sync.enable(folder, PASS, "desk")
    first = FolderWatch(lambda: None, mem.paths.locks_dir)
    second = FolderWatch(lambda: None, mem.paths.locks_dir)
    try:
        first.follow(str(folder), mem.sync.device)
        second.follow(str(folder), mem.sync.device)
        assert first.active and not second.active
        assert second.error.endswith("another program of this home watches it already")
        mem.sync.watch = second
        status = mem.sync.status()
        assert status.watching and status.watch_error == ""  # the folder is watched all the same
        first.close()
        second.follow(str(folder), mem.sync.device)  # the next sync of the second program takes over
        assert second.active and second.error == ""
    finally:
        first.close()
        second.close()


def test_enabling_and_disabling_sync_starts_and_stops_the_watch_at_once(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "Sync"
    folder.mkdir()
    mem = homes.open("a")
    submitted: list[Callable[[], object]] = []
    add_maintenance(schedule.Scheduler(), mem, submitted.append)
    submitted.pop()()  # the sync at start: sync is off, nothing to watch
    watch = mem.sync.watch
    assert watch is not None and not watch.active and watch.error == ""
    mem.sync.enable(folder, PASS, "desk")  # as Settings ▸ Sync does, on the store worker
    assert watch.active
    assert mem.sync.disable()
    assert not watch.active and not mem.sync.status().watching
