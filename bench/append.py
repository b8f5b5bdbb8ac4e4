"""Append latency with a 4 MiB history.json (issue: p50 <= 5 ms).

    python -m bench.append [--history-mib 4] [--appends 300]

Fills a session's history.json to the given size (compaction held off), then times single-message
appends through ``Memory.append`` — archive insert, atomic history.json rewrite with fsync, bookkeeping.
Also times one compaction from 4 MiB.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.corpus import Corpus
from engine import Memory, Message

MIB = 1024 * 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--history-mib", type=float, default=4.0)
    parser.add_argument("--appends", type=int, default=300)
    args = parser.parse_args()
    corpus = Corpus(seed=3)
    # background=False: the append path alone (the background embedder would compete for the CPU here).
    with tempfile.TemporaryDirectory() as tmp, Memory.open(Path(tmp) / "home", background=False) as mem:
        mem.update_settings(max_history_bytes=64 * MIB)
        path = mem.paths.history_file("cli-bench")
        while mem._log.files.size(path) < args.history_mib * MIB - 20_000:
            now = mem.clock()
            mem.append(
                "cli-bench",
                [
                    Message("user" if i % 2 == 0 else "assistant", corpus.message() * 3, now + i)
                    for i in range(200)
                ],
            )
        size = mem._log.files.size(path)
        times = []
        for i in range(args.appends):
            message = Message("user" if i % 2 == 0 else "assistant", corpus.message(), mem.clock())
            t0 = time.perf_counter()
            mem.append("cli-bench", [message])
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(
            f"history.json {size / MIB:.2f} MiB, {len(mem.history('cli-bench')):,} messages; "
            f"{args.appends} single-message appends"
        )
        print(
            f"append latency: p50 {statistics.median(times):.2f} ms, p95 {times[int(len(times) * 0.95) - 1]:.2f} ms, "
            f"max {times[-1]:.2f} ms"
        )
        mem.update_settings(max_history_bytes=4 * MIB)
        result = mem.compact("cli-bench")
        print(
            f"compaction at 4 MiB: {result.trimmed:,} messages trimmed, {result.bytes_before:,} -> "
            f"{result.bytes_after:,} bytes in {result.seconds * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
