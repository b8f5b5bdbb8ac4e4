"""Desktop benchmarks: launch to tray icon shown, idle RSS, RSS after the embedder loads, and opening a
100,000-message session.

Usage: ``.venv/bin/python -m bench.desktop [--messages N]``. RSS after the embedder loads is measured in a
subprocess (``--embedder-rss HOME``) that opens the app's state and viewer offscreen on a small seeded
home with the real default embedder (``MEMTRAY_EMBEDDER`` is ignored), waits until the embedder is
chosen and the backlog is embedded, and reads its own VmRSS. The launch is measured in a subprocess under
Xvfb with trayer (skipped, with a line saying so, when they are missing); the viewer is measured
offscreen in this process on a home seeded through the engine's facade.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_launch(home: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.desktop.xdisplay import missing, xvfb_with_tray

    if missing():
        print(f"launch to tray icon: skipped (missing {', '.join(missing())})")
        return
    runs = []
    with xvfb_with_tray() as env:
        for _ in range(3):
            started = time.perf_counter()
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tests.desktop.traycheck",
                    str(home),
                    tempfile.mkdtemp(),
                    "--no-click",
                ],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
            wall = time.perf_counter() - started
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            runs.append((result["icon_shown_s"], wall))
        idle = subprocess.Popen(
            [sys.executable, "-m", "desktop.launcher", "--home", str(home)], env=env, cwd=ROOT
        )
        try:
            time.sleep(3)  # let it settle: this is a measurement of the idle app, not a test
            idle_rss = rss_mb(idle.pid)
        finally:
            idle.terminate()
            idle.wait(10)
    in_process = sorted(r[0] for r in runs)
    print(
        f"launch to tray icon docked (in-process clock, 3 runs): median {in_process[1]:.2f} s, min {in_process[0]:.2f} s"
    )
    print(
        f"launch to tray icon docked (wall, interpreter start included): median {sorted(r[1] for r in runs)[1]:.2f} s"
    )
    print(f"RSS idle (tray app, 3 s after launch): {idle_rss:.0f} MiB")


def embedder_rss(home: Path) -> None:
    """In this process: the app's state and viewer offscreen, the default embedder loaded; print JSON."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.pop("MEMTRAY_EMBEDDER", None)
    from desktop import refguard

    refguard.install()
    from PySide6.QtWidgets import QApplication

    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from desktop.viewer.window import ViewerWindow
    from engine import Memory

    app = QApplication(sys.argv[:1])
    runner = TaskRunner()
    started = time.perf_counter()
    mem = Memory.open(home)
    state = AppState(runner)
    state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=True)
    viewer = ViewerWindow(state)
    viewer.present()
    app.processEvents()
    before = rss_mb(os.getpid())
    assert mem.semantic is not None
    while mem.semantic.choice is None:
        app.processEvents()
        time.sleep(0.05)
    choice = mem.semantic.choice
    assert mem.wait_idle(300), "embedding did not finish"
    loaded = time.perf_counter() - started
    app.processEvents()
    after = rss_mb(os.getpid())
    state.detach()
    runner.shutdown()
    mem.close()
    print(json.dumps({"before": before, "after": after, "embedder": choice.name, "seconds": loaded}))


def bench_embedder_rss(messages: int = 200) -> None:
    from engine import Memory, Message

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        mem = Memory.open(home, background=False)
        try:
            mem.append(
                "small",
                [
                    Message("user" if i % 2 == 0 else "assistant", f"message {i}: 第{i}則訊息", 10**18 + i)
                    for i in range(messages)
                ],
            )
        finally:
            mem.close()
        env = {k: v for k, v in os.environ.items() if k != "MEMTRAY_EMBEDDER"}
        proc = subprocess.run(
            [sys.executable, "-m", "bench.desktop", "--embedder-rss", str(home)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(
        f"RSS after the embedder loads ({result['embedder']}, {messages} messages embedded, "
        f"{result['seconds']:.1f} s): {result['after']:.0f} MiB "
        f"(viewer shown offscreen before it loaded: {result['before']:.0f} MiB)"
    )


def seed_big(home: Path, count: int) -> float:
    from engine import Memory, Message

    started = time.perf_counter()
    mem = Memory.open(home)
    try:
        mem.update_settings(max_history_bytes=512 * 1024)
        batch = 20_000
        for start in range(0, count, batch):
            mem.append(
                "big",
                [
                    Message(
                        "user" if i % 2 == 0 else "assistant",
                        f"message {i}: 第{i}則訊息 about the garden",
                        1_700_000_000 * 10**9 + i * 10**9,
                    )
                    for i in range(start, min(count, start + batch))
                ],
            )
    finally:
        mem.close()
    return time.perf_counter() - started


def bench_viewer(home: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop import refguard

    refguard.install()
    from PySide6.QtWidgets import QApplication

    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from desktop.viewer.window import ViewerWindow
    from engine import Memory

    app = QApplication(sys.argv[:1])
    runner = TaskRunner()
    mem = Memory.open(home)
    state = AppState(runner)
    state.memory = mem
    viewer = ViewerWindow(state)
    viewer.present()
    model = viewer.conversation.model
    times = []
    for _ in range(5):
        done = {"t": 0.0}

        def on_loaded(_session: str, d: dict[str, float] = done) -> None:
            d["t"] = time.perf_counter()

        model.session_did_load.connect(on_loaded)
        started = time.perf_counter()
        viewer.conversation.open(mem, "big")
        while not done["t"]:
            app.processEvents()
        app.processEvents()
        times.append(done["t"] - started)
        model.session_did_load.disconnect(on_loaded)
    bar = viewer.conversation.list.verticalScrollBar()
    rows = model.rowCount()
    started = time.perf_counter()
    bar.setValue(bar.minimum())
    while model.message(0) is None:
        app.processEvents()
    page = time.perf_counter() - started
    cut = model.cut_row()
    print(
        f"viewer open, 100k-message session: median {sorted(times)[2] * 1000:.0f} ms over 5 "
        f"({rows:,} rows, the last pages read first, cut line at row {cut})"
    )
    print(f"first page after dragging the scroll bar to the top: {page * 1000:.0f} ms")
    runner.shutdown()
    mem.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--embedder-rss", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.embedder_rss is not None:
        embedder_rss(args.embedder_rss)
        return
    bench_embedder_rss()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        seconds = seed_big(home, args.messages)
        print(f"seeded {args.messages:,} messages through the engine in {seconds:.1f} s")
        bench_launch(home)
        bench_viewer(home)


if __name__ == "__main__":
    main()
