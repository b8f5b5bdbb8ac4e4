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
