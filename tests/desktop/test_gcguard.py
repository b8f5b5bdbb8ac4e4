"""Garbage collection runs on the GUI thread: a cycle made on a worker is freed on the main thread."""

from __future__ import annotations

import gc
import threading
from typing import Any

FREED_ON: list[str] = []


class Cycle:
    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        FREED_ON.append(threading.current_thread().name)


def test_cycles_made_on_a_worker_are_collected_on_the_gui_thread(qtbot: Any) -> None:
    assert not gc.isenabled()  # the session fixture moved collection to the GUI thread, as the app does

    held: list[list[object]] = []

    def make_garbage() -> None:
        for _ in range(5):
            Cycle()
        held.append([[] for _ in range(5000)])  # live objects push generation 0 over its threshold

    worker = threading.Thread(target=make_garbage, name="worker")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: len(FREED_ON) >= 5, timeout=10_000)
    assert set(FREED_ON) == {threading.main_thread().name}
    held.clear()


def test_full_collections_wait_while_work_holds_them_off(qtbot: Any) -> None:
    from desktop.gcguard import full_collections_held, holding_full_collections

    generations: list[int] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(on_gc)
    try:
        with holding_full_collections():
            assert full_collections_held()
            for _ in range(gc.get_threshold()[2] + 1):
                gc.collect(1)  # a full collection is due
            generations.clear()
            held: list[list[object]] = [
                [] for _ in range(5000)
            ]  # generation 0 over its threshold: the collector runs
            qtbot.waitUntil(lambda: bool(generations), timeout=10_000)
            qtbot.wait(600)
            assert 2 not in generations, generations  # only the young generations while held
        assert not full_collections_held()
        held += [[] for _ in range(5000)]
        qtbot.waitUntil(lambda: 2 in generations, timeout=10_000)  # the full one that waited runs now
    finally:
        gc.callbacks.remove(on_gc)
    held.clear()
