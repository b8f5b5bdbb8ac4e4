"""A search with a big embedding backlog: wall time and peak RSS of ``memtray search`` with N queued rows.

    python -m bench.backlog [--messages 1000,1000000] [--embedded 0,3200] [--db-dir bench/out/backlog]
                            [--source DIR] [--repeat 3]

For each N, a home is built once (then reused) under ``--db-dir``: N synthetic messages in 100 sessions
(``bench.corpus``), every one queued for embedding, indexed in the FTS tables and the context index as an
append would. ``--embedded E`` gives the newest E of them a vector under the default embedder's id
(random unit vectors: what a search costs does not depend on their values), as if the background
embedder had got that far. Then ``memtray search QUERY --match MODE`` runs as a fresh process (the default
embedder, ``MEMTRAY_EMBEDDER`` unset) ``--repeat`` times per mode; the median wall time, the peak RSS of
the process (``wait4``) and the coverage line it printed are shown. ``--source DIR`` runs the CLI of
another checkout (its ``engine`` package) on the same homes, to compare with an older version.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import Corpus
from engine import Memory, Message
from engine.embedders.e5 import E5Embedder
from engine.search import context as contextfts
from engine.semantic import rows
from engine.sessions import archive

SESSIONS = 100
BATCH = 20_000
NOW = 1_700_000_000 * 10**9
QUERY = "kubernetes ramen"
MODES = ("hybrid", "keyword", "semantic")
CLI = "import sys; from engine.cli import main; sys.exit(main(sys.argv[1:]))"


def build(home: Path, messages: int, embedded: int) -> None:
    """The home of ``messages`` queued messages, the newest ``embedded`` with a vector (once)."""
    done = home / ".built"
    if done.exists():
        return
    started = time.perf_counter()
    corpus = Corpus(seed=7)
    with Memory.open(home, background=False) as mem:
        for start in range(0, messages, BATCH):
            per_session: dict[str, list[Message]] = {}
            for i in range(start, min(start + BATCH, messages)):
                session = f"bench-{i % SESSIONS:03d}"
                role = "user" if i % 2 else "assistant"
                per_session.setdefault(session, []).append(Message(role, corpus.message(), NOW + i * 10**9))
            with mem._store.write() as conn:
                for session, items in per_session.items():
                    ids = archive.insert(conn, session, items, NOW)
                    stored = [
                        Message(m.role, m.content, m.send_at, m.sender, i, session)
                        for m, i in zip(items, ids, strict=True)
                    ]
                    rows.enqueue(conn, stored, NOW)  # what an append queues, in the same transaction
                    contextfts.add(conn, stored)
        for s in range(SESSIONS):
            mem.paths.session_dir(f"bench-{s:03d}").mkdir(parents=True, exist_ok=True)
        if embedded:
            embed_newest(mem, embedded)
    done.write_text(f"{messages} {embedded}\n")
    print(
        f"built {home}: {messages:,} messages, {embedded:,} embedded, in {time.perf_counter() - started:.1f}s"
    )


def embed_newest(mem: Memory, count: int) -> None:
    """Random unit vectors for the newest ``count`` messages under the e5 id; taken off the queue."""
    rng = np.random.default_rng(1)
    with mem._store.write() as conn:
        newest = conn.execute("SELECT id, session_id FROM messages ORDER BY id DESC LIMIT ?", (count,)).all()
        vectors = rng.standard_normal((len(newest), E5Embedder.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        items = [rows.Pending(int(i), str(s), "", "") for i, s in newest]
        rows.save(conn, E5Embedder.id, E5Embedder.dim, items, rows.to_blobs(vectors))


def run_search(source: Path, home: Path, mode: str) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MiB and the stderr of one ``memtray search`` process."""
    env = {k: v for k, v in os.environ.items() if k != "MEMTRAY_EMBEDDER"}
    args = [sys.executable, "-c", CLI, "--home", str(home), "search", QUERY, "--match", mode]
    started = time.perf_counter()
    process = subprocess.Popen(
        args, cwd=source, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"search failed ({process.returncode}): {stderr}")
    return wall, usage.ru_maxrss / 1024, stderr.strip().replace("\n", " | ")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", default="1000,1000000", help="comma-separated N")
    parser.add_argument("--embedded", default="0", help="comma-separated E (newest messages with a vector)")
    parser.add_argument("--db-dir", type=Path, default=Path("bench/out/backlog"))
    parser.add_argument("--source", type=Path, default=Path.cwd(), help="the checkout whose CLI runs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"memtray search {QUERY!r} as a fresh process, engine from {args.source.resolve()}")
    print(f"{'queued':>10} {'embedded':>9} {'mode':9} {'wall s':>7} {'peak RSS MiB':>13}  stderr")
    for n in (int(x) for x in args.messages.split(",")):
        for e in (int(x) for x in args.embedded.split(",") if int(x) < n):
            home = (args.db_dir / f"{n}-{e}").resolve()
            build(home, n, e)
            for mode in MODES:
                runs = [run_search(args.source.resolve(), home, mode) for _ in range(args.repeat)]
                wall = statistics.median(r[0] for r in runs)
                rss = max(r[1] for r in runs)
                print(f"{n - e:>10,} {e:>9,} {mode:9} {wall:7.2f} {rss:13.0f}  {runs[-1][2]}", flush=True)


if __name__ == "__main__":
    main()
