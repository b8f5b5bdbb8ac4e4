"""Error-memory search latency with 10,000 records: ``python -m bench.errors [N_RECORDS]``.

Fills a fresh memory (temporary home, the hash embedder) with synthetic records — 40 tools, symptoms and
causes made from the templates of ``bench.errors_floor`` plus random words — then times
``mem.errors.search`` on 300 queries: the vector path (vectors first, keyword fallback when nothing
reaches the floor) and the keyword path (``use_vectors=False``), without and with a tool filter. Each
search includes the TTL refresh of its hits (a write transaction). Prints p50/p95 in milliseconds.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from bench.errors_floor import CASES
from engine import Memory

WORDS = [
    "cache",
    "proxy",
    "socket",
    "buffer",
    "header",
    "token",
    "session",
    "queue",
    "worker",
    "thread",
    "lock",
    "index",
    "shard",
    "replica",
    "schema",
    "column",
    "cursor",
    "batch",
    "stream",
    "chunk",
    "retry",
    "backoff",
    "handshake",
    "cert",
    "dns",
    "route",
    "gateway",
    "upstream",
    "payload",
    "encoder",
    "parser",
    "lexer",
    "bundle",
    "plugin",
    "driver",
    "kernel",
    "module",
    "binary",
    "symbol",
    "pointer",
    "heap",
    "stack",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(label: str, queries: list[tuple[str, str | None]], run: Callable[[str, str | None], int]) -> None:
    run(*queries[0])  # warm the vector matrix
    times: list[float] = []
    found = 0
    for query, tool in queries:
        start = time.perf_counter()
        found += bool(run(query, tool))
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"{label:<34} p50 {percentile(times, 0.50):6.2f} ms  p95 {percentile(times, 0.95):6.2f} ms  "
        f"mean {statistics.fmean(times):6.2f} ms  ({found}/{len(queries)} queries returned records)"
    )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(7)
    tools = [f"tool_{i:02d}" for i in range(40)] + sorted({case[0] for case in CASES})
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home)
        start = time.perf_counter()
        for i in range(count):
            case = CASES[i % len(CASES)]
            extra = " ".join(rng.sample(WORDS, 3))
            mem.errors.remember(
                rng.choice(tools),
                f"{case[1]} ({extra}, #{i})",
                f"{rng.choice(WORDS)} fix {i}",
                rng.choice(["resolved", "failed", "abandoned"]),
                cause=case[2],
                keywords=[*case[3], rng.choice(WORDS)],
            )
        elapsed = time.perf_counter() - start
        print(
            f"{count:,} records written in {elapsed:.1f}s ({count / elapsed:,.0f}/s, hash embedder, "
            f"one transaction each)"
        )
        queries: list[tuple[str, str | None]] = []
        for i in range(300):
            case = CASES[i % len(CASES)]
            queries.append((case[4][i % 2] if i % 3 else case[5], None))
        with_tool = [(q, rng.choice(tools)) for q, _ in queries]
        errors = mem.errors

        def vector(query: str, tool: str | None) -> int:
            return len(errors.search(query, tool_name=tool))

        def keyword(query: str, tool: str | None) -> int:
            return len(errors.search(query, tool_name=tool, use_vectors=False))

        timed("vector path (then fallback)", queries, vector)
        timed("keyword path", queries, keyword)
        timed("vector path, one tool", with_tool, vector)
        timed("keyword path, one tool", with_tool, keyword)
        mem.close()


if __name__ == "__main__":
    main()
