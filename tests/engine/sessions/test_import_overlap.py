"""Two batches of an import overlap (``engine.sessions.batchimport``): one batch's history.json files are
written by a thread while the next batch's rows are stored, the first batch's session locks held until its
files are written. An importer never waits for a lock while it holds others, so a task that holds a
session of the next batch and waits for one of the batch being written does not deadlock with it."""

from __future__ import annotations

import json
import threading
import time

import pytest

from engine import Memory
from engine.errors import StoreLocked
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import importing

T0 = 1_700_000_000 * 10**9


def conversations(count: int) -> list[ImportedSession]:
    return [
        ImportedSession(
            f"conv-{n}",
            [
                Message("user", f"question {n} kiwi{n}x", T0 + n),
                Message("assistant", f"answer {n}", T0 + n + 1),
            ],
        )
        for n in range(count)
    ]


def on_disk(memory: Memory, session: str) -> list[str]:
    return [r["content"] for r in json.loads(memory.paths.history_file(session).read_bytes())]


def test_a_task_holding_the_next_batchs_session_and_waiting_for_this_ones_does_not_deadlock(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importing, "BATCH_MESSAGES", 4)  # two conversations per batch
    locks = memory._log.locks
    holding, done = threading.Event(), threading.Event()
    outcome: list[str] = []

    def other_task() -> None:  # holds conv-2 (the next batch), then wants conv-0 (the batch being written)
        try:
            with locks.hold("conv-2"):
                holding.set()
                with locks.hold("conv-0"):
                    outcome.append("both held")
        except StoreLocked as exc:
            outcome.append(str(exc))
        finally:
            done.set()

    task = threading.Thread(target=other_task)

    def progress(stored: int, total: int) -> None:
        if stored == 4:  # the first batch is stored, its files being written, its locks held
            task.start()
            assert holding.wait(10)
            time.sleep(0.05)  # the task is waiting for conv-0 now

    started = time.monotonic()
    report = memory.import_sessions(conversations(6), progress)
    took = time.monotonic() - started
    task.join(30)
    assert done.is_set() and outcome == ["both held"]
    assert report.messages_added == 12
    assert took < 10  # no lock's timeout waited out
    for n in range(6):
        archived = [m.content for m in memory.iter_archive(f"conv-{n}")]
        assert archived == [f"question {n} kiwi{n}x", f"answer {n}"] == on_disk(memory, f"conv-{n}")


def test_batches_sharing_a_session_do_not_overlap(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "BATCH_MESSAGES", 4)
    first, again = (
        conversations(3),
        [
            ImportedSession("conv-1", [Message("user", "later 1", T0 + 100)]),
            ImportedSession("conv-9", [Message("user", "new 9", T0 + 101)]),
        ],
    )
    report = memory.import_sessions(first + again)  # conv-1 twice: its second batch waits for its file
    assert report.messages_added == 8
    assert on_disk(memory, "conv-1") == ["question 1 kiwi1x", "answer 1", "later 1"]
    assert [m.content for m in memory.iter_archive("conv-1")] == on_disk(memory, "conv-1")
    assert on_disk(memory, "conv-9") == ["new 9"]
