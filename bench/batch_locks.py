"""A batch's session locks: ``hold`` one by one (an ``ExitStack``, the import's old way) against
``SessionLocks.hold_all``, for ``--sessions`` new sessions in batches of ``--per-batch``, alternately,
CPU and wall time of each round.

    python -m bench.batch_locks [--sessions 1000] [--per-batch 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from engine.storage.locks import SessionLocks


def run(kind: str, folder: Path, sessions: int, per_batch: int) -> tuple[float, float]:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    table = SessionLocks(folder)
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(0, sessions, per_batch):
        names = [f"conv-{n:05d}" for n in range(start, min(start + per_batch, sessions))]
        if kind == "hold":
            with ExitStack() as held:
                for name in sorted(names):
                    held.enter_context(table.hold(name))
        else:
            with table.hold_all(names):
                pass
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--per-batch", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtray-bench-locks-") as tmp:
        for _ in range(args.rounds):
            for kind in ("hold", "hold_all"):
                cpu, wall = run(kind, Path(tmp) / "locks", args.sessions, args.per_batch)
                print(
                    f"{kind:8s} {args.sessions:,} new sessions: CPU {cpu * 1000:.0f} ms, wall {wall * 1000:.0f} ms "
                    f"(load {os.getloadavg()[0]:.1f})"
                )


if __name__ == "__main__":
    main()
