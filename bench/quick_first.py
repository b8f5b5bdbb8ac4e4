"""The quick search's first answer after start: from the first keystroke to results on screen (offscreen).

Usage: ``.venv/bin/python -m bench.quick_first [--messages 3000] [--home bench/out/quick_first] [--runs 3]``.

Builds (once) a home of N messages of mixed English and Chinese text embedded with the real default
embedder (e5 where it loads), so that the first search has vectors to rank. Then, in a fresh process per
run (the model cache kept, as after the first start), it starts the app (:class:`desktop.app.Memtray`,
no tray), and as soon as the memory is open opens the quick search and types a word; it prints the time
from that keystroke until results were shown, how they were matched (keyword first while the model
loads), and when the results by meaning joined.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORD = "garden"


def build(home: Path, count: int) -> None:
    from bench.corpus import Corpus
    from engine import Memory, Message

    os.environ.pop("MEMTRAY_EMBEDDER", None)
    mem = Memory.open(home)
    try:
        if sum(s.total_messages for s in mem.sessions()) >= count:
            return
        corpus, rng = Corpus(seed=5), random.Random(5)
        for chat in range(count // 100):
            mem.append(
                f"chat-{chat:04d}",
                [
                    Message(
                        "user" if i % 2 == 0 else "assistant",
                        corpus.message() + (f" the {WORD} needs water" if rng.random() < 0.02 else ""),
                        1_700_000_000 * 10**9 + (chat * 100 + i) * 10**9,
                    )
                    for i in range(100)
                ],
            )
        started = time.perf_counter()
        mem.wait_idle(900)
        print(f"built and embedded {count:,} messages in {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        mem.close()


def run_once(home: Path) -> None:
    """In the child: start the app, type at once, print the timings as JSON."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.pop("MEMTRAY_EMBEDDER", None)
    from desktop import refguard

    refguard.install()
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.app import Memtray
    from engine.paths import Paths

    app = QApplication(sys.argv[:1])
    memtray = Memtray(app, Paths.resolve(home), tray_available=False)
    out: dict[str, object] = {}
    typed: list[float] = []

    def on_found(results: list[object]) -> None:
        quick = memtray.quick_search
        assert quick is not None
        now = time.perf_counter()
        match = quick.searcher.found.query.match if quick.searcher.found else "?"
        if results and "first_ms" not in out:
            out["first_ms"], out["first_match"] = round((now - typed[0]) * 1000), match
        if match == "hybrid" and "meaning_ms" not in out:
            out["meaning_ms"] = round((now - typed[0]) * 1000)
            finish()

    def finish() -> None:
        print(json.dumps(out), flush=True)
        memtray.quit()

    def type_now() -> None:
        quick = memtray.show_quick_search()
        quick.search_did_finish.connect(on_found)
        typed.append(time.perf_counter())
        quick.box.setText(WORD)

    memtray.memory_did_open.connect(lambda: QTimer.singleShot(0, type_now))
    QTimer.singleShot(60_000, finish)
    memtray.start()
    app.exec()
    memtray.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "quick_first")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        run_once(args.home)
        return
    build(args.home, args.messages)
    print(f"{'run':>4} {'first results':>14} {'matched':>8} {'meaning joined':>15}")
    for run in range(1, args.runs + 1):
        child = subprocess.run(
            [sys.executable, "-m", "bench.quick_first", "--child", "--home", str(args.home)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
        if not lines:
            print(f"{run:>4} failed: {child.stderr[-500:]}")
            continue
        got = json.loads(lines[-1])
        meaning = f"{got['meaning_ms']} ms" if "meaning_ms" in got else "no"
        print(f"{run:>4} {got.get('first_ms', '?'):>11} ms {got.get('first_match', '?'):>8} {meaning:>15}")


if __name__ == "__main__":
    main()
