"""The GUI's worst stall while Settings ▸ Sync creates a folder (real Argon2id key derivation) and while
its "Sync now" applies what another device wrote (offscreen).

Usage: ``.venv/bin/python -m bench.sync_settings_freeze [--messages 20000]``.

Home A is the app's (a settings window over :class:`desktop.state.AppState`); home B is another device,
driven through the engine. Phases, each probed by :class:`bench.desktop_freeze.Probe` (a 10 ms timer that
records how late each tick came):

1. *create*: A types a passphrase twice and clicks "Enable sync" on an empty folder (key derivation with
   the engine's own Argon2id limits, on the store worker);
2. *sync now*: B joined the folder and wrote N messages; A clicks "Sync now", which applies them.

For each it prints the wall time until the window says it is done, the worst stall and the 99th
percentile. Keys go to an in-memory keyring, never the OS's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

PASS = "correct horse battery staple"


def report(name: str, seconds: float, stalls: list[float]) -> None:
    worst = max(stalls, default=0.0)
    p99 = statistics.quantiles(stalls, n=100)[98] if len(stalls) >= 100 else worst
    print(
        f"{name:<10} {seconds:7.2f} s   worst stall {worst:6.1f} ms   p99 {p99:6.1f} ms   ({len(stalls)} ticks)"
    )


def measure(messages: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from bench.desktop_freeze import Probe, spin
    from desktop.settings_window import SettingsWindow
    from desktop.state import AppState
    from desktop.tasks import TaskRunner
    from engine import Memory
    from engine.embedders.hashing import HashEmbedder
    from engine.llm.keys import Keys
    from engine.messages import Message
    from tests.engine.sync.conftest import MemoryKeyring

    app = QApplication(sys.argv[:1])
    base = Path(tempfile.mkdtemp(prefix="memtray-sync-bench-"))
    folder = base / "Sync"
    folder.mkdir()
    runner = TaskRunner()
    mem = Memory.open(
        base / "a", embedder=HashEmbedder(), keys=Keys(backend=MemoryKeyring()), background=False
    )
    other = Memory.open(
        base / "b", embedder=HashEmbedder(), keys=Keys(backend=MemoryKeyring()), background=False
    )
    state = AppState(runner)
    state.set_memory(mem, summaries=None, errors=None, keys=None, semantic=False)
    window = SettingsWindow(state)
    window.show()
    box = window.sync
    spin(app, 2.0, lambda: box.status.text() != "")
    box.folder.setText(str(folder))
    box.check_folder()
    spin(app, 5.0, lambda: box.joining is not None)
    probe = Probe()
    probe.start()
    spin(app, 0.3)

    box.device_name.setText("desk")
    box.passphrase.setText(PASS)
    box.confirm.setText(PASS)
    start = probe.now()
    box.enable.click()
    assert spin(app, 60.0, lambda: box.message.text() == "Sync is on."), box.message.text()
    end = probe.now()
    report("create", end - start, probe.between(start, end))

    other.sync.enable(folder, PASS, "laptop")
    stamp = 1_700_000_000 * 10**9
    for first in range(0, messages, 5000):
        batch = range(first, min(messages, first + 5000))
        other.append("far", [Message("user", f"message {i} from the laptop", stamp + i) for i in batch])
    other.sync.now()
    spin(app, 0.3)
    start = probe.now()
    box.sync_now.click()
    assert spin(app, 600.0, lambda: box.message.text() == "Synced."), box.message.text()
    end = probe.now()
    report(f"sync now ({messages:,} messages)", end - start, probe.between(start, end))
    found = mem.search("laptop", match="keyword")
    print(f"keyword search on A finds the laptop's messages: {bool(found)}")
    window.close()
    runner.shutdown()
    mem.close()
    other.close()
    shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    measure(parser.parse_args().messages)


if __name__ == "__main__":
    main()
