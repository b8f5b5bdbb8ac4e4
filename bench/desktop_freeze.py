"""GUI stalls while the viewer opens and moves through a 50,000-message session, and while it imports a
big ChatGPT export (offscreen).

Usage: ``.venv/bin/python -m bench.desktop_freeze [--messages 50000] [--home bench/out/desktop_freeze]
[--import-mb 100] [--import-only]``.

Builds (once, then reuses) a home with one session of N messages of mixed English and Chinese text, of
varied length, appended through the engine (so history.json holds its recent 4 MiB and the rest is
archive only), embedded with the hash embedder so that no background work runs while it measures.

An event-loop latency probe (a 10 ms ``PreciseTimer``; each tick records how late it came) runs while
the viewer opens the session, while it is scrolled up a wheel step at a time and by dragging the scroll
bar, and while Home and End are pressed in the message list. For each phase it prints the worst stall
and the 99th percentile, and how long it took until real rows (not placeholders) were on screen.

``--import-mb N`` adds a phase: File ▸ Import… of a ChatGPT ``conversations.json`` of about N MB into a
fresh home (the viewer's own :meth:`~desktop.viewer.window.ViewerWindow.run_import`, as a user starts it),
probed from the click until the report. The export is generated once (``bench/out/chatgpt-<N>mb.json``)
in the shape of a real ChatGPT export (the tests' :mod:`tests.engine.exportdata` messages, with the
metadata, ids and conversation fields a real export carries): conversations of 20 to 400 messages of
mixed English and Chinese text. ``--import-only`` skips the 50,000-message session. ``--model-build``
measures only the first build and load of the e5 model (an empty model cache) on a worker thread.
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


def real_export(path: Path, megabytes: int) -> Path:
    """A ChatGPT ``conversations.json`` of about ``megabytes`` MB (kept and reused)."""
    import json

    from bench.corpus import Corpus
    from tests.engine.exportdata import gpt_conversation, gpt_message

    if path.exists():
        return path
    corpus, rng = Corpus(seed=11), random.Random(11)
    target, size, conversations = megabytes * 1_000_000, 0, []
    index = 0
    while size < target:
        index += 1
        start = 1_700_000_000.0 + index * 86_400
        nodes: list[tuple[str, str | None, dict[str, Any] | None]] = [("root", None, None)]
        parent = "root"
        for i in range(rng.randint(20, 400)):
            role = "user" if i % 2 == 0 else "assistant"
            text = " ".join(corpus.message() for _ in range(rng.randint(1, 12)))
            extra: dict[str, Any] = {"request_id": f"{index:08x}-{i:04x}", "timestamp_": "absolute"}
            if role == "assistant":
                extra |= {
                    "finish_details": {"type": "stop", "stop_tokens": [200002]},
                    "citations": [],
                    "content_references": [],
                    "is_complete": True,
                    "model_slug": "gpt-4o",
                    "default_model_slug": "gpt-4o",
                    "parent_id": parent,
                }
            message = gpt_message(role, [text], start + i * 30, **extra)
            message |= {"id": f"{index:06d}-{i:05d}-{rng.getrandbits(64):016x}", "update_time": None}
            message |= {"end_turn": role == "assistant", "weight": 1.0, "channel": None}
            node = f"{index:06d}-{i:05d}"
            nodes.append((node, parent, message))
            parent = node
        conversation = gpt_conversation(f"bench-{index:06d}", nodes, parent)
        conversation |= {
            "title": f"Conversation {index}: " + corpus.english()[:40],
            "moderation_results": [],
            "plugin_ids": None,
            "conversation_template_id": None,
            "gizmo_id": None,
            "is_archived": False,
            "safe_urls": [],
            "default_model_slug": "gpt-4o",
        }
        conversations.append(conversation)
        size += len(json.dumps(conversation, ensure_ascii=False).encode())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversations, ensure_ascii=False), encoding="utf-8")
    print(
        f"generated {path} ({path.stat().st_size / 1e6:.0f} MB, {len(conversations)} conversations)",
        flush=True,
    )
    return path


def measure_import(export: Path) -> None:
    """The GUI's stalls while the viewer imports ``export`` into a fresh home (the import as a user runs it)."""
    import tempfile

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop import refguard

    refguard.install()
    from PySide6.QtWidgets import QApplication

    from desktop.gcguard import MainThreadCollector
    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from desktop.viewer.window import ViewerWindow
    from engine import Memory
    from engine.embedders.hashing import HashEmbedder

    app = QApplication.instance() or QApplication(sys.argv[:1])
    collector = MainThreadCollector(app)
    collector.start()
    collections: list[tuple[int, float]] = []  # (generation, ms) of the collections on the GUI thread
    began: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[:] = [time.perf_counter()]
        elif began:
            collections.append((info.get("generation", -1), (time.perf_counter() - began[0]) * 1000))

    gc.callbacks.append(on_gc)
    with tempfile.TemporaryDirectory(prefix="freeze-import-") as folder:
        runner = TaskRunner()
        mem = Memory.open(Path(folder), embedder=HashEmbedder())
        state = AppState(runner)
        state.memory = mem
        viewer = ViewerWindow(state)
        viewer.present()
        spin(app, 0.5)
        probe = Probe()
        probe.start()
        spin(app, 0.3)
        done: list[object] = []
        viewer.import_did_finish.connect(done.append)
        start = probe.now()
        viewer.run_import("chatgpt", export, None)
        spin(app, 600, lambda: bool(done))
        end = probe.now()
        probe.timer.stop()
        lateness = sorted(probe.between(start, end)) or [0.0]
        p99 = lateness[min(len(lateness) - 1, int(len(lateness) * 0.99))]
        over = sum(1 for late in lateness if late > 100)
        mb = export.stat().st_size / 1e6
        print(f"{'phase':36} {'max ms':>8} {'p99 ms':>8} {'ticks':>6} {'>100 ms':>8}  took")
        print(
            f"{f'import a {mb:.0f} MB ChatGPT export':36} {lateness[-1]:8.1f} {p99:8.1f} {len(lateness):6} {over:8}  {end - start:.1f} s"
        )
        print(f"import report: {getattr(done[0], 'text', done[0]) if done else 'none within 600 s'}")
        stalls = [(t - start, late) for t, late in probe.samples if start <= t <= end and late > 100]
        print(
            "stalls over 100 ms (s into the import, ms): "
            + ", ".join(f"{t:.1f}:{ms:.0f}" for t, ms in stalls)
        )
        full = [ms for generation, ms in collections if generation == 2]
        print(f"full garbage collections: {len(full)}, longest {max(full, default=0):.0f} ms")
        runner.shutdown()
        mem.close()
    collector.stop()


def measure_model_build() -> None:
    """The GUI's stalls while the e5 model is built for the first time (an empty model cache) and loaded
    on a worker thread, as the background embedder does at the first start."""
    import tempfile
    import threading

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from engine.embedders.e5onnx import OnnxE5Embedder

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory(prefix="freeze-model-") as folder:
        probe = Probe()
        probe.start()
        spin(app, 0.3)
        done: list[bool] = []
        start = probe.now()
        worker = threading.Thread(
            target=lambda: (OnnxE5Embedder(cache_folder=Path(folder)).load(), done.append(True))
        )
        worker.start()
        spin(app, 120, lambda: bool(done))
        end = probe.now()
        probe.timer.stop()
        worker.join()
    lateness = sorted(probe.between(start, end)) or [0.0]
    p99 = lateness[min(len(lateness) - 1, int(len(lateness) * 0.99))]
    over = sum(1 for late in lateness if late > 100)
    print(f"{'phase':36} {'max ms':>8} {'p99 ms':>8} {'ticks':>6} {'>100 ms':>8}  took")
    print(
        f"{'first e5 model build and load':36} {lateness[-1]:8.1f} {p99:8.1f} {len(lateness):6} {over:8}  {end - start:.1f} s"
    )


def count_of(mem: Any) -> int:
    return next(s.hot_messages + s.archived_messages for s in mem.sessions() if s.id == SESSION)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "desktop_freeze")
    parser.add_argument("--import-mb", type=int, default=0, help="also import a ChatGPT export of this size")
    parser.add_argument("--import-only", action="store_true", help="only the import phase")
    parser.add_argument(
        "--model-build", action="store_true", help="the first e5 model build, and nothing else"
    )
    args = parser.parse_args()
    if args.model_build:
        measure_model_build()
        return
    if not args.import_only:
        build(args.home, args.messages)
        measure(args.home)
    if args.import_mb or args.import_only:
        megabytes = args.import_mb or 100
        measure_import(real_export(ROOT / "bench" / "out" / f"chatgpt-{megabytes}mb.json", megabytes))


if __name__ == "__main__":
    main()
