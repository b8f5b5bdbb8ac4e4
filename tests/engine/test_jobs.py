"""Maintenance jobs: the hourly error purge, the temp-session cleanup, the daily integrity check and the
sync (a no-op until it is enabled; also submitted once at start) join the shared scheduler."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import pytest
import schedule

from engine import Memory, Message
from engine.errors import CorruptStore
from engine.jobs import add_maintenance
from tests.engine.conftest import FakeClock


def test_jobs_are_scheduled_and_only_submit_work(memory: Memory, clock: FakeClock) -> None:
    scheduler = schedule.Scheduler()
    submitted: list[Callable[[], Any]] = []
    add_maintenance(scheduler, memory, submitted.append)
    assert {tag for job in scheduler.jobs for tag in job.tags} == {
        "maintenance",
        "errors",
        "temp",
        "integrity",
        "sync",
    }
    memory.errors.remember("fetch_page", "timeout after 30s", "retry with a longer timeout", "resolved")
    memory.append("temp-old", [Message("user", "scratch")])
    folder = memory.paths.session_dir("temp-old")
    stale = folder.stat().st_mtime - 3600
    for path in [folder, *folder.iterdir()]:
        os.utime(path, (stale, stale))
    clock.now = int(folder.stat().st_mtime * 1e9) + 3600 * 10**9
    scheduler.run_all()
    # the sync at start, then each job once: nothing ran on the scheduler's thread
    assert len(submitted) == 5 and memory.exists("temp-old")
    clock.now += 91 * 24 * 3600 * 10**9
    for work in submitted:
        work()
    assert not memory.exists("temp-old")
    assert memory.errors.count() == 0


def test_a_failing_job_is_logged_and_the_scheduler_goes_on(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    scheduler = schedule.Scheduler()
    submitted: list[Callable[[], Any]] = []
    add_maintenance(scheduler, memory, submitted.append)

    def broken() -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(memory.errors, "purge_expired", broken)
    scheduler.run_all()
    with caplog.at_level(logging.ERROR, logger="memtray.jobs"):
        results = [work() for work in submitted]
    assert results[1] is None and "error purge job failed" in caplog.text
    scheduler.run_all()  # still scheduled
    assert len(submitted) == 9


def test_the_daily_integrity_check_hands_a_damaged_database_to_on_damaged(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    scheduler = schedule.Scheduler()
    submitted: list[Callable[[], Any]] = []
    damaged: list[CorruptStore] = []
    add_maintenance(scheduler, memory, submitted.append, damaged.append)
    (integrity_job,) = [job for job in scheduler.jobs if "integrity" in job.tags]
    integrity_job.run()
    submitted.pop()()  # healthy: checked and recorded, nothing handed on
    assert damaged == [] and int(memory.paths.integrity_stamp.read_text()) == clock.now

    def broken(*, daily: bool = False) -> bool:
        raise CorruptStore("the memory database is damaged (its check says: page 7 is never used)")

    monkeypatch.setattr(memory, "check_integrity", broken)
    integrity_job.run()
    submitted.pop()()
    assert len(damaged) == 1 and "page 7" in str(damaged[0])
