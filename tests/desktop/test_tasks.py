"""The task runner: results on the GUI thread, failures reported, cancellation, a responsive GUI."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import QThread, QTimer

from desktop.tasks import CancelToken, TaskRunner


def test_result_is_delivered_on_the_gui_thread(runner: TaskRunner, qtbot: Any) -> None:
    seen: dict[str, Any] = {}

    def op() -> int:
        seen["worker"] = threading.current_thread().name
        return 42

    def on_success(value: int) -> None:
        seen["value"] = value
        seen["gui"] = QThread.currentThread() is qtbot_thread

    qtbot_thread = QThread.currentThread()
    runner.run_query(op, on_success)
    qtbot.waitUntil(lambda: "value" in seen)
    assert seen["value"] == 42
    assert seen["gui"] is True
    assert seen["worker"].startswith("memtray-store")


def test_failure_goes_to_on_failure(runner: TaskRunner, qtbot: Any) -> None:
    errors: list[BaseException] = []
    runner.run_query(lambda: 1 / 0, lambda _v: None, errors.append)
    qtbot.waitUntil(lambda: bool(errors))
    assert isinstance(errors[0], ZeroDivisionError)


def test_network_pool_is_separate_from_the_store_worker(runner: TaskRunner, qtbot: Any) -> None:
    release = threading.Event()
    done: list[str] = []
    runner.run_query(lambda: release.wait(10), lambda _v: done.append("network"), pool="network")
    runner.run_query(lambda: "store", done.append)
    qtbot.waitUntil(lambda: done == ["store"])  # the store worker was not held by the slow network call
    release.set()
    qtbot.waitUntil(lambda: len(done) == 2)


def test_labelled_tasks_are_tracked_and_cancellable(runner: TaskRunner, qtbot: Any) -> None:
    token = CancelToken()
    started = threading.Event()
    results: list[Any] = []

    def op() -> str:
        started.set()
        while True:
            token.check()
            threading.Event().wait(0.005)

    with qtbot.waitSignal(runner.task_did_start):
        runner.run_query(op, results.append, results.append, label="Exporting x", token=token)
    assert [t.label for t in runner.active] == ["Exporting x"]
    assert started.wait(5)
    with qtbot.waitSignal(runner.task_did_finish):
        token.cancel()
    assert runner.active == []
    assert results == []  # a cancelled task reports neither success nor failure


def test_a_slow_engine_call_leaves_the_gui_responsive(runner: TaskRunner, qtbot: Any) -> None:
    """While the worker is busy, the event loop keeps turning: a QTimer keeps counting."""
    ticks = {"n": 0}
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.__setitem__("n", ticks["n"] + 1))
    timer.start()
    release = threading.Event()
    finished: list[Any] = []
    runner.run_query(lambda: release.wait(30), finished.append)  # a "slow engine call"
    qtbot.waitUntil(lambda: ticks["n"] >= 20, timeout=5000)  # the loop turned 20 times during the call
    assert not finished
    release.set()
    qtbot.waitUntil(lambda: bool(finished))
    timer.stop()


def test_nothing_runs_after_shutdown(qapp: Any) -> None:
    task_runner = TaskRunner()
    task_runner.shutdown()
    assert task_runner.run_query(lambda: 1) is None


@pytest.mark.parametrize("pool", ["store", "network"])
def test_unhandled_failure_is_raised_on_the_gui_thread(runner: TaskRunner, qtbot: Any, pool: str) -> None:
    with qtbot.captureExceptions() as exceptions:
        runner.run_query(lambda: 1 / 0, pool=pool)  # type: ignore[arg-type]
        qtbot.waitUntil(lambda: bool(exceptions))
    assert isinstance(exceptions[0][1], ZeroDivisionError)
