"""GUI stalls while the viewer opens and moves through a 50,000-message session (offscreen).

Usage: ``.venv/bin/python -m bench.desktop_freeze [--messages 50000] [--home bench/out/desktop_freeze]``.

Builds (once, then reuses) a home with one session of N messages of mixed English and Chinese text, of
varied length, appended through the engine (so history.json holds its recent 4 MiB and the rest is
archive only), embedded with the hash embedder so that no background work runs while it measures.

An event-loop latency probe (a 10 ms ``PreciseTimer``; each tick records how late it came) runs while
the viewer opens the session, while it is scrolled up a wheel step at a time and by dragging the scroll
bar, and while Home and End are pressed in the message list. For each phase it prints the worst stall
and the 99th percentile, and how long it took until real rows (not placeholders) were on screen.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SESSION = "big"
TICK_MS = 10


def build(home: Path, count: int) -> None:
    """One session of ``count`` messages (skipped when the home already holds them)."""
    from bench.corpus import Corpus
    from engine import Memory, Message
    from engine.embedders.hashing import HashEmbedder

    mem = Memory.open(home, embedder=HashEmbedder())
    try:
        have = next((s.hot_messages + s.archived_messages for s in mem.sessions() if s.id == SESSION), 0)
        if have >= count:
            return
        started = time.perf_counter()
        corpus = Corpus(seed=7)
        rng = random.Random(7)
        batch = 5000
        for start in range(have, count, batch):
            mem.append(
                SESSION,
                [
                    Message(
                        "user" if i % 2 == 0 else "assistant",
                        f"#{i} " + " ".join(corpus.message() for _ in range(rng.randint(1, 8))),
                        1_700_000_000 * 10**9 + i * 10**9,
                    )
                    for i in range(start, min(count, start + batch))
                ],
            )
        mem.wait_idle(600)
        print(f"built {count:,} messages in {time.perf_counter() - started:.1f} s", flush=True)
    finally:
        mem.close()


class Probe:
    """A 10 ms precise timer; each tick records how much later than 10 ms after the previous one it came."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        self.clock = QElapsedTimer()
        self.clock.start()
        self.samples: list[tuple[float, float]] = []  # (time in s, lateness in ms)
        self._last = 0
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = self.clock.nsecsElapsed()
        self.timer.start()

    def now(self) -> float:
        return self.clock.nsecsElapsed() / 1e9

    def _tick(self) -> None:
        ns = self.clock.nsecsElapsed()
        late = max(0.0, (ns - self._last) / 1e6 - TICK_MS)
        self._last = ns
        self.samples.append((ns / 1e9, late))

    def between(self, start: float, end: float) -> list[float]:
        return [late for t, late in self.samples if start <= t <= end]


def spin(app: Any, seconds: float, until: Callable[[], bool] | None = None) -> bool:
    """Run the event loop for ``seconds`` or until ``until()`` is true; return whether it became true."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        app.processEvents()
        if until is not None and until():
            return True
        time.sleep(0.001)
    return until() if until is not None else False


def measure(home: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop import refguard

    refguard.install()
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from desktop.gcguard import MainThreadCollector
    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from desktop.viewer.conversation_model import MessageRole
    from desktop.viewer.window import ViewerWindow
    from engine import Memory
    from engine.embedders.hashing import HashEmbedder

    app = QApplication(sys.argv[:1])
    collector = MainThreadCollector(app)  # as the app does: cyclic garbage is collected on the GUI thread
    collector.start()
    gc_pauses: list[float] = []
    started_at: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started_at[:] = [time.perf_counter()]
        elif started_at and info.get("generation") == 2:
            gc_pauses.append((time.perf_counter() - started_at[0]) * 1000)

    gc.callbacks.append(on_gc)
    runner = TaskRunner()
    mem = Memory.open(home, embedder=HashEmbedder())
    state = AppState(runner)
    state.memory = mem
    viewer = ViewerWindow(state)
    viewer.resize(1100, 800)
    viewer.present()
    pane = viewer.conversation
    view = pane.list
    spin(app, 0.5)
    probe = Probe()
    probe.start()
    spin(app, 0.3)
    results: list[tuple[str, list[float], float | None]] = []

    def visible_text(y: int) -> str | None:
        index = view.indexAt(QPoint(20, y))
        message = index.data(MessageRole) if index.isValid() else None
        return message.content if message is not None else None

    def shown() -> bool:
        return visible_text(5) is not None and visible_text(view.viewport().height() - 5) is not None

    def phase(name: str, act: Callable[[], None], ready: Callable[[], bool], settle: float = 1.0) -> None:
        start = probe.now()
        act()
        acted = probe.now()
        appeared = spin(app, 10.0, ready)
        first = probe.now() - acted if appeared else None
        spin(app, settle)
        results.append((name, probe.between(start, probe.now()), first))

    phase("open the session", lambda: viewer.open_session(SESSION), lambda: shown() and not pane.settling)

    def wheel_up() -> None:
        bar = view.verticalScrollBar()
        for _ in range(40):
            bar.setValue(bar.value() - 3 * max(1, view.sizeHintForRow(0)))
            spin(app, 0.03)

    phase("scroll up (40 wheel steps)", wheel_up, shown)

    def drag_middle() -> None:
        bar = view.verticalScrollBar()
        for step in range(1, 11):
            bar.setValue(bar.maximum() - (bar.maximum() - bar.minimum()) * step // 20)
            spin(app, 0.05)

    phase("drag the scroll bar to the middle", drag_middle, shown)
    view.setFocus()
    first_text = "#0 "

    def at_first() -> bool:
        text = visible_text(5)
        return text is not None and text.startswith(first_text)

    phase("Home", lambda: QTest.keyClick(view, Qt.Key.Key_Home), at_first, settle=1.0)
    last_text = f"#{count_of(mem) - 1} "

    def at_last() -> bool:
        text = visible_text(view.viewport().height() - 5)
        return text is not None and text.startswith(last_text)

    phase("End", lambda: QTest.keyClick(view, Qt.Key.Key_End), at_last, settle=1.0)
    probe.timer.stop()
    print(f"{'phase':36} {'max ms':>8} {'p99 ms':>8} {'ticks':>6}  rows shown after")
    for name, lateness, first in results:
        ordered = sorted(lateness) or [0.0]
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        when = f"{first * 1000:.0f} ms" if first is not None else "not within 10 s"
        print(f"{name:36} {ordered[-1]:8.1f} {p99:8.1f} {len(lateness):6}  {when}")
    everything = [late for _name, lateness, _first in results for late in lateness]
    print(f"median lateness over all phases: {statistics.median(everything or [0.0]):.2f} ms")
    if gc_pauses:
        print(f"full garbage collections (GUI thread): {len(gc_pauses)}, longest {max(gc_pauses):.1f} ms")
    runner.shutdown()
    mem.close()


def count_of(mem: Any) -> int:
    return next(s.hot_messages + s.archived_messages for s in mem.sessions() if s.id == SESSION)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "desktop_freeze")
    args = parser.parse_args()
    build(args.home, args.messages)
    measure(args.home)


if __name__ == "__main__":
    main()
