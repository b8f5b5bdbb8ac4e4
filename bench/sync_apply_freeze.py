"""The GUI thread's tick lateness while the store worker applies a large join (offscreen).

Usage: ``.venv/bin/python -m bench.sync_apply_freeze [--messages 100000] [--per-session 100] [--snapshot]``.

Device B holds N messages (imported, then written to the shared folder by its ``sync now``); device A,
empty, joins the folder. A's ``sync now`` then runs on the app's store worker
(:class:`desktop.tasks.TaskRunner`) while a 10 ms precise QTimer ticks on the GUI thread
(:class:`bench.desktop_freeze.Probe`). Prints the wall time of the apply and how late the ticks came
(worst, p99, p50), and the same for an idle second before it (the floor of this machine). With
``--snapshot`` B packs its segments into one snapshot first (what a new device usually finds), so A
decodes and applies one file of N messages.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

PASS = "bench passphrase"


def lateness(name: str, seconds: float, stalls: list[float]) -> None:
    worst = max(stalls, default=0.0)
    p99 = statistics.quantiles(stalls, n=100)[98] if len(stalls) >= 100 else worst
    p50 = statistics.median(stalls) if stalls else 0.0
    print(
        f"{name:<28} {seconds:7.2f} s   worst {worst:6.1f} ms   p99 {p99:6.1f} ms   p50 {p50:5.1f} ms"
        f"   ({len(stalls)} ticks)"
    )


def measure(messages: int, per: int, snapshot: bool = False) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import nacl.pwhash
    from PySide6.QtWidgets import QApplication

    from bench.desktop_freeze import Probe, spin
    from bench.homes import marked as corpus
    from bench.homes import open_home
    from desktop.tasks import TaskRunner
    from engine.sync import crypto, pack

    # libsodium's interactive Argon2id limits: the key derivation is not what is measured here
    crypto.KDF_LIMITS = (nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE, nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE)
    app = QApplication(sys.argv[:1])
    base = Path(tempfile.mkdtemp(prefix="memtray-apply-freeze-"))
    try:
        folder = base / "Sync"
        folder.mkdir()
        other = open_home(base / "b")
        other.import_sessions(corpus(messages, per))
        other.sync.enable(folder, PASS, "laptop")
        if snapshot:  # B packs what it wrote into one snapshot, as after 64 segments
            pack.PACK_AFTER = 1
        sent = other.sync.now()
        other.close()
        print(
            f"B wrote {sent.messages_sent:,} messages in {sent.segments_written} segments"
            + (f", packed into {sent.packed} snapshot" if sent.packed else "")
        )
        mem = open_home(base / "a")
        mem.sync.enable(folder, PASS, "desk")
        runner = TaskRunner()
        probe = Probe()
        probe.start()
        start = probe.now()
        spin(app, 1.0)
        lateness("idle (floor)", probe.now() - start, probe.between(start, probe.now()))
        done: list[object] = []
        start = probe.now()
        began = time.perf_counter()
        runner.run_query(mem.sync.now, done.append, done.append)
        assert spin(app, 900.0, lambda: bool(done)), "the apply did not finish"
        end = probe.now()
        took = time.perf_counter() - began
        print(f"A applied: {done[0].describe() if hasattr(done[0], 'describe') else done[0]!r}")
        lateness(f"apply ({messages:,} messages)", took, probe.between(start, end))
        runner.shutdown()
        mem.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    del app
    sys.stdout.flush()
    os._exit(0)  # PySide6 can crash while the interpreter tears down; the figures are printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--per-session", type=int, default=100)
    parser.add_argument("--snapshot", action="store_true", help="B packs its segments into one snapshot")
    args = parser.parse_args()
    measure(args.messages, args.per_session, args.snapshot)


if __name__ == "__main__":
    main()
