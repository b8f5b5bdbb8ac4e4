"""Keyword search latency over a large archive (issue: p50 <= 5 ms, p95 <= 50 ms for every query class).

    python -m bench.keyword [--messages 1000000] [--sessions 100] [--db-dir bench/out/keyword]

Builds (once, then reuses) a home whose archive holds N synthetic messages — half English (Zipf over 20k
pseudo-words), half zh-TW (Zipf over common characters) — with rare terms planted, then times
``Memory.search(match="keyword")`` per query class, over all sessions and within one session, and the
keyword side of hybrid search (``engine.search.context`` with plain keyword search) for the same queries.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench.corpus import Corpus
from engine import Memory, Message
from engine.sessions import archive
from engine.storage import fts

PLANTED = {"exrekalo": 20, "記憶體": 200, "電腦": 150, "quasarine": 3}


def build(home: Path, messages: int, sessions: int) -> None:
    mem = Memory.open(home, background=False)
    with mem._store.read() as conn:
        have = conn.execute("SELECT COUNT(*) FROM messages").scalar_one()
    if have >= messages:
        mem.close()
        return
    corpus = Corpus(seed=42)
    plants = {
        i * (messages // count) + 7 + 1009 * n: term
        for n, (term, count) in enumerate(PLANTED.items())
        for i in range(count)
    }
    started = time.perf_counter()
    batch = 20_000
    now = 1_700_000_000 * 10**9
    for start in range(have, messages, batch):
        rows: dict[str, list[Message]] = {}
        for i in range(start, min(start + batch, messages)):
            text = corpus.message()
            if i in plants:
                text = f"{text} {plants[i]} {corpus.english()}"
            session = f"bench-{i % sessions:03d}"
            rows.setdefault(session, []).append(
                Message("user" if i % 2 else "assistant", text, now + i * 10**9)
            )
        with mem._store.write() as conn:
            for session, items in rows.items():
                archive.insert(conn, session, items, now)
    for s in range(sessions):
        mem.paths.session_dir(f"bench-{s:03d}").mkdir(parents=True, exist_ok=True)
    with mem._store.write() as conn:
        for table in sorted(mem._store.fts_tables):
            fts.optimize(conn, table)
    print(f"built {messages:,} messages in {time.perf_counter() - started:.1f}s")
    mem.close()


QUERIES = {
    "english rare word": "exrekalo",
    "english very rare word": "quasarine",
    "english very common word": "memory",
    "english natural question": "what did we say about the memory index session",
    "cjk 3+ chars rare": "記憶體",
    "cjk 3+ chars common": "的一是",
    "cjk long sentence": "我們的記憶體是不是不夠用",
    "cjk 2 chars rare (LIKE)": "電腦",
    "cjk 2 chars common (LIKE)": "的是",
    "mixed zh + en": "記憶體 memory",
}


def measure(
    mem: Memory, query: str, session: str | None, repeat: int, hybrid_side: bool = False
) -> tuple[float, float, int]:
    """p50 and p95 in ms and the number of hits, of keyword search or (``hybrid_side``) of the keyword
    side of hybrid search (context index + plain keyword search, 50 deep; no embedding)."""
    times = []
    hits = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        if hybrid_side:
            context, _ = mem._search.keyword_ranking(query, session=session, scope="all", depth=50)
            hits = len(context)
        else:
            hits = len(mem.search(query, session=session, match="keyword", limit=10))
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], hits


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--db-dir", type=Path, default=Path("bench/out/keyword"))
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    home = args.db_dir / f"{args.messages}"
    build(home, args.messages, args.sessions)
    with Memory.open(home, background=False) as mem:
        print(
            f"archive: {args.messages:,} messages in {args.sessions} sessions; SQLite "
            f"{mem._store.features.sqlite_version}; FTS tables {sorted(mem._store.fts_tables)}"
        )
        print(f"{'query class':32} {'scope':12} {'p50 ms':>8} {'p95 ms':>8} {'hits':>5}")
        for label, query in QUERIES.items():
            for scope_label, session in (("all", None), ("one session", "bench-007")):
                mem.search(query, session=session, match="keyword")  # warm the page cache
                p50, p95, hits = measure(mem, query, session, args.repeat)
                print(f"{label:32} {scope_label:12} {p50:8.2f} {p95:8.2f} {hits:5d}")
        print("\nthe keyword side of hybrid search (engine.search.context + plain keyword search, 50 deep):")
        print(f"{'query class':32} {'scope':12} {'p50 ms':>8} {'p95 ms':>8} {'hits':>5}")
        for label, query in QUERIES.items():
            for scope_label, session in (("all", None), ("one session", "bench-007")):
                p50, p95, hits = measure(mem, query, session, max(5, args.repeat // 4), hybrid_side=True)
                print(f"{label:32} {scope_label:12} {p50:8.2f} {p95:8.2f} {hits:5d}")


if __name__ == "__main__":
    main()
