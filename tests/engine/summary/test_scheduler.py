"""The scheduled summarizer: the mtime gate, the temp- skip, quarter hours, guarded jobs, the lock."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import pytest

from engine import Memory, Message
from engine.errors import StoreLocked
from engine.summary import files
from engine.summary.scheduler import SummaryScheduler
from engine.summary.service import lock_name
from tests.engine.summary.conftest import T0, conversation, summary_json
from tests.fakegemini import FakeGemini


def _touch(path: Any, ns: int) -> None:
    os.utime(path, ns=(ns, ns))


def test_pending_uses_the_mtime_gate_and_skips_temp_sessions(smem: Memory) -> None:
    for sid in ("a", "b", "temp-1234", "c"):
        smem.append(sid, conversation(2))
    files.save(smem.paths, "b", files.coerce(summary_json()))
    files.save(smem.paths, "c", files.coerce(summary_json()))
    base = smem.paths.history_file("b").stat().st_mtime_ns
    _touch(smem.paths.history_file("b"), base)
    _touch(smem.paths.summary_file("b"), base)  # equal: not newer, skipped
    _touch(smem.paths.history_file("c"), base + 10**9)
    _touch(smem.paths.summary_file("c"), base)  # history newer: picked
    assert smem.summaries.pending() == ["a", "c"]


def test_run_pending_summarizes_one_at_a_time_and_never_temp(smem: Memory, fake: FakeGemini) -> None:
    smem.append("a", conversation(2))
    smem.append("temp-x", conversation(2))
    fake.reply_json(summary_json("a"))
    results = smem.summaries.run_pending()
    assert [r.session for r in results] == ["a"]
    assert len(fake.calls()) == 1
    assert not smem.paths.summary_file("temp-x").exists()
    assert smem.summaries.pending() == []  # summary.json is now newer than history.json


def test_run_pending_continues_after_a_failing_session(smem: Memory, fake: FakeGemini) -> None:
    smem.append("a", conversation(2))
    smem.append("b", conversation(2))
    fake.reply_text("garbage")
    fake.reply_json(summary_json("b"))
    results = smem.summaries.run_pending()
    assert len(results) == 1 and len(fake.calls()) == 2
    assert len(smem.summaries.status().last_errors) == 1


def test_jobs_are_on_the_quarter_hour() -> None:
    sched = SummaryScheduler(lambda: None, ThreadPoolExecutor(1))
    assert sorted(job.at_time.minute for job in sched.scheduler.get_jobs()) == [0, 15, 30, 45]  # type: ignore[union-attr]
    nxt = sched.next_run()
    assert nxt is not None and nxt.minute % 15 == 0 and nxt.second == 0


class _RaisingExecutor(Executor):
    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        raise RuntimeError("cannot schedule new futures after shutdown")


def test_scheduler_survives_raising_jobs(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise ValueError("boom")

    with ThreadPoolExecutor(1) as pool:
        sched = SummaryScheduler(work, pool)
        with caplog.at_level(logging.ERROR, logger="memtray.summary.scheduler"):
            first = sched.submit()
            assert first is not None
            assert first.result(timeout=10) is None  # the work's exception was caught and logged
            sched.run_all()  # the schedule's own jobs run (and submit) without raising
            sched.tick()
    assert len(sched.scheduler.get_jobs()) == 4
    assert calls and "a scheduled summary job failed" in caplog.text
    broken = SummaryScheduler(work, _RaisingExecutor())
    broken.run_all()  # submit raising inside a job: logged, not raised
    broken.tick()
    assert len(broken.scheduler.get_jobs()) == 4


def test_pause_submits_nothing(smem: Memory) -> None:
    ran = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        sched = SummaryScheduler(ran.set, pool, enabled=smem.summaries.enabled)
        smem.update_settings(summaries_enabled=False)
        assert sched.submit() is None
        assert not smem.summaries.status().enabled
        smem.update_settings(summaries_enabled=True)
        future = sched.submit()
        assert future is not None
        future.result(timeout=10)
    assert ran.is_set()


def test_a_second_submit_while_running_is_skipped() -> None:
    release = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        sched = SummaryScheduler(lambda: release.wait(10), pool)
        first = sched.submit()
        assert first is not None and sched.busy()
        assert sched.submit() is None
        release.set()
        first.result(timeout=10)


def test_the_summary_lock_keeps_runs_apart(smem: Memory, fake: FakeGemini) -> None:
    from engine.storage.locks import SessionLocks

    smem.append("a", [Message("user", "hi", T0)])
    smem._log.locks = SessionLocks(smem.paths.locks_dir, timeout=0.2)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with smem._log.locks.hold(lock_name("a")):
            holding.set()
            release.wait(10)

    worker = threading.Thread(target=hold)
    worker.start()
    try:
        assert holding.wait(10)
        with pytest.raises(StoreLocked):
            smem.summaries.generate("a")
    finally:
        release.set()
        worker.join(10)
    assert fake.calls() == []
