"""Commands on large homes: wall time and peak memory of each ``memtray`` command, run as a fresh process,
on a home of 100,000 sessions and on a home holding one 200 MB message.

    python -m bench.large_homes [--sessions 100000] [--huge-mb 200] [--dir DIR] [--keep] [--source DIR]

The homes are built once under ``--dir`` (default: a folder in /dev/shm when there is one, else the
temporary folder) with ``Memory.import_sessions``, and reused when ``--keep`` left them there. The huge
message is stored as an older memtray did, before messages were bounded (the bound is lifted in this
process only while it is written). The homes are built by a child process, so the measuring process
stays small (a forked child counts its parent's memory until it starts the program). Each command runs 3
times; the minimum wall time and the largest peak resident memory (of the process, from ``wait4``) are
printed. ``--source DIR`` runs the CLI of another checkout to compare with an older version.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import engine.messages
from engine import Memory, Message
from engine.imported import ImportedSession
from tests.clirun import CLI, ROOT

T0 = 1_700_000_000 * 1_000_000_000
S = 1_000_000_000
RUNS = 3


def build_many(home: Path, sessions: int) -> float:
    """``sessions`` sessions of two messages each (the first with a word of its own)."""
    started = time.perf_counter()
    with Memory.open(home, background=False) as mem:
        for first in range(0, sessions, 2000):
            mem.import_sessions(
                [
                    ImportedSession(
                        f"s{i:06d}",
                        [
                            Message("user", f"hello number {i} word{i}x", T0 + i * S),
                            Message("assistant", "noted", T0 + i * S + 1),
                        ],
                    )
                    for i in range(first, min(sessions, first + 2000))
                ]
            )
    return time.perf_counter() - started


def build_huge(home: Path, megabytes: int) -> float:
    """Three sessions; ``big`` starts with one message of ``megabytes`` MB (as an older memtray stored it)."""
    started = time.perf_counter()
    bound = engine.messages.MAX_CONTENT_CHARS
    engine.messages.MAX_CONTENT_CHARS = 10**10
    try:
        with Memory.open(home, background=False) as mem:
            mem.append("big", [Message("user", "huge " + "x" * (megabytes * 10**6), T0)])
            mem.append("big", [Message("assistant", "that was long", T0 + S)])
            for name in ("small-a", "small-b"):
                mem.append(name, [Message("user", f"a short one in {name}", T0 + 2 * S)])
    finally:
        engine.messages.MAX_CONTENT_CHARS = bound
    return time.perf_counter() - started


def run(source: Path, home: Path, *args: str) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in MB, exit status) of one ``memtray --home HOME ARGS…`` process."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), *args],
        cwd=source,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "MEMTRAY_EMBEDDER": "hash"},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss // 1024, proc.returncode


def measure(source: Path, home: Path, label: str, commands: list[tuple[str, ...]]) -> None:
    for args in commands:
        results = [run(source, home, *args) for _ in range(RUNS)]
        wall = min(r[0] for r in results)
        peak = max(r[1] for r in results)
        status = results[-1][2]
        print(f"{label:18} {' '.join(args):44} {wall:7.2f} s {peak:7,} MB  exit {status}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--huge-mb", type=int, default=200)
    shm = Path("/dev/shm")
    parser.add_argument("--dir", type=Path, default=shm / "memtray-bench" if shm.is_dir() else None)
    parser.add_argument("--keep", action="store_true", help="leave the homes for the next run")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout whose CLI runs")
    parser.add_argument("--build", choices=["many", "huge"], help=argparse.SUPPRESS)  # the child's job
    parser.add_argument("--into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build == "many":
        print(f"built {args.sessions:,} sessions in {build_many(args.into, args.sessions):.0f} s", flush=True)
        return
    if args.build == "huge":
        print(f"built a {args.huge_mb} MB message in {build_huge(args.into, args.huge_mb):.0f} s", flush=True)
        return
    base = args.dir or Path(tempfile.mkdtemp(prefix="memtray-bench-"))
    many, huge = base / f"many-{args.sessions}", base / f"huge-{args.huge_mb}"
    try:
        for kind, home in (("many", many), ("huge", huge)):
            if not home.exists():
                subprocess.run(
                    [
                        *(sys.executable, "-m", "bench.large_homes", "--build", kind, "--into", str(home)),
                        *("--sessions", str(args.sessions), "--huge-mb", str(args.huge_mb)),
                    ],
                    cwd=ROOT,
                    check=True,
                )
        print(f"CLI of {args.source}; homes in {base}")
        last = f"s{args.sessions - 1:06d}"
        measure(
            args.source,
            many,
            f"{args.sessions:,} sessions",
            [
                ("--help",),
                ("sessions", "--limit", "20"),
                ("sessions",),
                ("sessions", "--json"),
                ("title", "--session", last),
                ("history", "--session", last),
                ("search", f"word{args.sessions - 1}x", "--match", "keyword"),
                ("append", "--session", last, "--role", "user", "--content", "one more"),
            ],
        )
        measure(
            args.source,
            huge,
            f"{args.huge_mb} MB message",
            [
                ("sessions",),
                ("sessions", "--json"),
                ("title", "--session", "big"),
                ("history", "--session", "small-a"),
                ("search", "short", "--match", "keyword"),
                ("append", "--session", "small-b", "--role", "user", "--content", "one more"),
            ],
        )
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
