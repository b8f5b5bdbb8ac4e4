"""CLI start: the wall time of each ``memtray`` command run as a fresh process.

    python -m bench.cli_start [--messages 0,10000] [--runs 10] [--db-dir bench/out/cli_start]
                              [--after-import 10000] [--source DIR]

For each N in ``--messages`` (0: an empty home, timed twice: never opened, a new folder for every run,
and opened once with no messages), every command of :data:`COMMANDS` runs ``--runs`` times and its
minimum and median wall time are printed. A home of N messages is built once under ``--db-dir`` with
``Memory.import_sessions`` (N synthetic messages in up to 100 sessions, ``bench.corpus``) and reused;
up to 100,000 messages are embedded with the hash embedder first, larger homes keep their embedding queue
(as right after an import). Then ``--after-import M`` times ``memtray search`` right after an import of M
messages: a fresh home, the import, one search process (keyword, then the default mode, each on its own
home), ``--runs`` times.

Every process runs with ``MEMTRAY_EMBEDDER=hash`` (a default-mode search embeds its query: the model's
load time is measured by ``bench.embedders``, not here). ``--source DIR`` runs the CLI of another
checkout (its ``engine`` and ``desktop`` packages) to compare with an older version.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.corpus import Corpus
from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession

CLI = "import sys; from desktop.launcher import main; sys.exit(main(sys.argv[1:]))"
NOW = 1_700_000_000 * 10**9
SESSION = "bench-000"
EMBED_UP_TO = 100_000
QUERY = Corpus(seed=7).words[40]  # a common word of the synthetic corpus

COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "sessions": ["sessions"],
    "search (keyword)": ["search", QUERY, "--match", "keyword"],
    "search (default)": ["search", QUERY],
    "history": ["history", "--session", SESSION],
    "append": ["append", "--session", SESSION, "--role", "user", "--content", "hello from the bench"],
}
"""What is timed; ``history`` on an empty home is the "no such session" answer (exit 1)."""


def run(source: Path, home: Path, argv: list[str]) -> float:
    """Wall seconds of one ``memtray --home HOME ARGV...`` process (exit 0, or 1 for a missing session)."""
    env = {**os.environ, "MEMTRAY_EMBEDDER": "hash"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, "--home", str(home), *argv],
        cwd=source,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0 and f"no session {SESSION!r}" not in done.stderr:
        raise SystemExit(f"memtray {' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall


def sessions_of(count: int, seed: int = 7) -> list[ImportedSession]:
    """``count`` synthetic messages in up to 100 sessions, one second apart."""
    corpus = Corpus(seed=seed)
    sessions = min(100, max(1, count // 100))
    per: list[list[Message]] = [[] for _ in range(sessions)]
    for i in range(count):
        role = "user" if i % 2 == 0 else "assistant"
        per[i % sessions].append(Message(role, corpus.message(), NOW + i * 10**9))
    return [ImportedSession(f"bench-{s:03d}", messages) for s, messages in enumerate(per)]


def build(home: Path, count: int) -> None:
    """The home of ``count`` imported messages (once); embedded with the hash embedder up to 100,000."""
    done = home / ".built"
    if done.exists():
        return
    started = time.perf_counter()
    embed = count <= EMBED_UP_TO
    with Memory.open(home, embedder=HashEmbedder(), background=embed) as mem:
        batch = 50_000
        for first in range(0, count, batch):
            mem.import_sessions(sessions_of(min(batch, count - first), seed=first))
        if embed:
            mem.wait_idle()
    done.write_text(f"{count}\n")
    print(f"built {home}: {count:,} messages in {time.perf_counter() - started:.1f}s", flush=True)


def line(label: str, times: list[float]) -> None:
    print(
        f"  {label:18} min {min(times):6.3f} s   p50 {statistics.median(times):6.3f} s   ({len(times)} runs)",
        flush=True,
    )


def time_commands(source: Path, home_for: Callable[[str, int], Path], runs: int) -> None:
    for label, argv in COMMANDS.items():
        line(label, [run(source, home_for(label, i), argv) for i in range(runs)])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", default="0,10000", help="comma-separated N (0: an empty home)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--db-dir", type=Path, default=Path("bench/out/cli_start"))
    parser.add_argument("--after-import", type=int, default=10_000, help="0: skip")
    parser.add_argument("--source", type=Path, default=Path.cwd(), help="the checkout whose CLI runs")
    args = parser.parse_args()
    source = args.source.resolve()
    print(f"memtray COMMAND as a fresh process, code from {source}; query {QUERY!r}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for count in (int(x) for x in args.messages.split(",")):
            if count == 0:
                print("empty home, never opened:")
                time_commands(source, lambda label, i: scratch / f"new-{label}-{i}", args.runs)
                print("empty home, opened once:")
                template = scratch / "opened"
                run(source, template, ["sessions"])
                copies: dict[str, Path] = {}
                for label in COMMANDS:
                    copies[label] = scratch / f"opened-{len(copies)}"
                    shutil.copytree(template, copies[label])
                time_commands(source, lambda label, _i, copies=copies: copies[label], args.runs)
                continue
            home = (args.db_dir / f"home-{count}").resolve()
            build(home, count)
            print(f"{count:,} messages ({home}):")
            time_commands(source, lambda _label, _i, home=home: home, args.runs)
        if args.after_import:
            print(f"memtray search right after importing {args.after_import:,} messages:")
            imported = sessions_of(args.after_import)
            for label in ("search (keyword)", "search (default)"):
                times = []
                for i in range(args.runs):
                    home = scratch / f"imported-{label}-{i}"
                    with Memory.open(home, background=False) as mem:
                        mem.import_sessions(imported)
                    times.append(run(source, home, COMMANDS[label]))
                line(label, times)


if __name__ == "__main__":
    main()
