"""The context ranking of a large home: its bounded path against FTS5's exact ranking, time and agreement.

    python -m bench.bounded [--home bench/out/mcp] [--queries 40] [--repeat 3]

On a home built by ``bench.mcp`` (200,000 messages; any home with the context index will do), times
``engine.search.context.search`` (what hybrid search asks for: 150 rows) for three-word queries drawn from
the home's corpus and for longer questions, over all sessions and within one session: as the engine
chooses (the bounded path above ``EXACT_MATCHES`` matching rows, unless a session that small is
searched) and forced onto FTS5's exact ranking.
Prints p50/p95 per class and path, how many queries took the bounded path, and how far the bounded
ranking agrees with the exact one: the share of the exact top 10 in the bounded top 10 and whether the
two first rows are the same.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from bench.corpus import Corpus
from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.messages import EVERY_MESSAGE
from engine.search import context as contextfts
from engine.search.query import parse
from engine.sessions import archive
from engine.storage.sql import Connection

QUESTIONS = (
    "what did we say about the memory index last time",
    "when did we talk about the project and the plan",
    "what was the problem with the data we had",
)


def timed(
    conn: Connection, text: str, session: str | None, repeat: int, exact: bool
) -> tuple[float, list[tuple[int, float]], bool]:
    """Best of ``repeat`` in ms, the ranking, and whether it took the bounded path."""
    query = parse(text)
    key = archive.known_key(conn, session) if session else None
    chosen, bounded = contextfts.EXACT_MATCHES, contextfts._bounded_search
    took = []

    def watched(*args: Any, **kwargs: Any) -> list[tuple[int, float]]:
        took.append(True)
        return bounded(*args, **kwargs)

    if exact:
        contextfts.EXACT_MATCHES = 10**12
    contextfts._bounded_search = watched
    try:
        times, ranked = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            ranked = contextfts.search(
                conn, query, session_key=key, session_id=session, where=EVERY_MESSAGE, limit=150
            )
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        contextfts.EXACT_MATCHES, contextfts._bounded_search = chosen, bounded
    return min(times), ranked, bool(took)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, default=Path("bench/out/mcp"))
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = Corpus(seed=99)
    classes = {
        "three words": [" ".join(corpus.english().split()[:3]) for _ in range(args.queries)],
        "questions": list(QUESTIONS),
    }
    with Memory.open(args.home, embedder=HashEmbedder(), background=False) as mem, mem._store.read() as conn:
        top = conn.execute("SELECT COUNT(*) FROM messages").scalar_one()
        session = conn.execute("SELECT session_id FROM messages ORDER BY id LIMIT 1 OFFSET ?", (top // 2,))
        middle = str(session.scalar_one())
        print(f"home {args.home}: {top:,} messages; EXACT_MATCHES {contextfts.EXACT_MATCHES:,}")
        print(f"{'class':12} {'scope':8} {'path':7} {'n':>3} {'bounded':>7} {'p50 ms':>8} {'p95 ms':>8} "
              f"{'top10 shared':>12} {'same first':>10}")  # fmt: skip
        for label, texts in classes.items():
            for scope, within in (("all", None), ("session", middle)):
                times: dict[str, list[float]] = {"engine": [], "exact": []}
                shared, first, bounded = [], [], 0
                for text in texts:
                    took, got, was_bounded = timed(conn, text, within, args.repeat, exact=False)
                    times["engine"].append(took)
                    took, want, _ = timed(conn, text, within, args.repeat, exact=True)
                    times["exact"].append(took)
                    bounded += was_bounded
                    if want:
                        wanted = {i for i, _ in want[:10]}
                        shared.append(len(wanted & {i for i, _ in got[:10]}) / len(wanted))
                        first.append(bool(got) and got[0][0] == want[0][0])
                for path, values in times.items():
                    values.sort()
                    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
                    agree = (
                        f"{statistics.mean(shared):12.3f} {statistics.mean(first):10.3f}"
                        if path == "engine" and shared
                        else ""
                    )
                    print(f"{label:12} {scope:8} {path:7} {len(values):3d} {bounded if path == 'engine' else 0:7d} "
                          f"{statistics.median(values):8.1f} {p95:8.1f} {agree}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
