"""``memtray mcp`` at scale: 2,000 sessions and 200,000 messages (issue 15: every page under 20,000
characters, search p95 under 300 ms).

    python -m bench.mcp [--sessions 2000] [--messages 200000] [--home bench/out/mcp] [--queries 40]

Builds (once, then reuses) a home with N sessions of synthetic English and zh-TW messages over two years,
imported with ``Memory.import_sessions`` and embedded with the hash embedder, then drives the tools the
way the server does (``run_tool``: argument check, run, JSON text) and prints, per tool, the time per
call (p50/p95/max) and the largest page in characters:

- ``list_sessions``: every page of all sessions at the default and the largest page size, the first page
  cold (the session overviews are read once, then cached while a session does not change);
- ``search``: keyword, hybrid and semantic queries over every session, their second pages, and with
  filters (role, dates);
- ``read``: a session from both ends and around search hits; ``resources/list`` pages.

Then the process's peak RSS, and the recall@10 of semantic search over all sessions (the int8
cross-session index, its candidates rescored in float32) against an exact float32 ranking of every
vector, with the recall of int8 scores alone beside it.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.corpus import Corpus
from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession
from engine.mcpserver import resources, server
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.paging import PAGE_CHARS
from engine.mcpserver.server import run_tool
from engine.mcpserver.tools import mcp_tools
from engine.semantic import crossindex

NS = 1_000_000_000
START = 1_640_000_000 * NS  # 2021-12-20
SPAN = 2 * 365 * 86_400 * NS
BOUND = 20_000
SPECS = {spec.name: spec for spec in mcp_tools()}


def build(home: Path, sessions: int, messages: int) -> None:
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        if len(mem.sessions()) >= sessions:
            return
        corpus = Corpus(seed=15)
        per = messages // sessions
        started = time.perf_counter()
        batch: list[ImportedSession] = []
        for s in range(sessions):
            first = START + s * (SPAN // sessions)
            convo = [
                Message(
                    "user" if i % 2 == 0 else "assistant",
                    corpus.message(),
                    first + i * 60 * NS,
                    "ann" if i % 2 == 0 else "",
                )
                for i in range(per)
            ]
            batch.append(ImportedSession(f"chat-{s:05d}", convo))
            if len(batch) == 100:
                mem.import_sessions(batch)
                batch = []
                print(f"  imported {s + 1:,} sessions ({time.perf_counter() - started:.0f} s)", flush=True)
        if batch:
            mem.import_sessions(batch)
        print("  embedding (hash embedder) ...", flush=True)
        mem.wait_idle()
        print(
            f"built {sessions:,} sessions, {per * sessions:,} messages in {time.perf_counter() - started:.0f} s"
        )


class Meter:
    """Times and page sizes of one kind of call."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.rows: dict[str, tuple[list[float], list[int]]] = {}

    def call(self, label: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        t0 = time.perf_counter()
        answer = run_tool(SPECS[name], self.ctx, args)
        elapsed = time.perf_counter() - t0
        text = answer.content[0].text  # type: ignore[union-attr]
        if answer.is_error:
            raise SystemExit(f"{name} {args}: {text}")
        times, sizes = self.rows.setdefault(label, ([], []))
        times.append(elapsed)
        sizes.append(len(text))
        assert answer.structured_content is not None
        return answer.structured_content

    def report(self) -> bool:
        fine = True
        print(f"{'call':<34}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'max chars':>11}")
        for label, (times, sizes) in self.rows.items():
            ms = sorted(t * 1000 for t in times)
            p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
            over = max(sizes) > BOUND
            fine = fine and not over
            print(
                f"{label:<34}{len(ms):>5}{statistics.median(ms):>9.1f}{p95:>9.1f}{ms[-1]:>9.1f}"
                f"{max(sizes):>11,}{'  OVER' if over else ''}"
            )
        return fine


def peak_mb() -> float:
    """The process's peak resident set so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def recall(mem: Memory, queries: list[str], k: int = 10) -> tuple[float, float]:
    """recall@k of ``search_vectors(session=None)`` and of int8 scores alone, against exact float32 over
    every vector (read from SQLite a chunk at a time)."""
    embedder = mem.semantic.embedder()
    q = np.stack([embedder.encode_query(t) for t in queries]).astype(np.float32)
    exact: list[list[tuple[float, int]]] = [[] for _ in queries]
    rough: list[list[tuple[float, int]]] = [[] for _ in queries]
    with mem._store.read() as conn:
        cursor = conn.raw.cursor()
        cursor.execute("SELECT message_id, vector FROM vectors WHERE embedder = ?", (embedder.id,))
        while got := cursor.fetchmany(8192):
            ids = np.asarray([r[0] for r in got])
            matrix = np.frombuffer(b"".join(r[1] for r in got), np.float32).reshape(len(got), -1)
            small, scale = crossindex.quantize(matrix)
            for best, scores in (
                (exact, matrix @ q.T),
                (rough, (small.astype(np.float32) @ q.T) * scale[:, None]),
            ):
                for j in range(len(queries)):
                    top = np.argsort(-scores[:, j])[:k]
                    best[j] = sorted(
                        best[j] + list(zip(scores[top, j].tolist(), ids[top].tolist(), strict=True)),
                        reverse=True,
                    )[:k]
    found = [{i for i, _ in mem.semantic.search_vectors(t, session=None, scope="all", k=k)} for t in queries]
    truth = [{i for _, i in e} for e in exact]
    ranked = sum(len(f & t) for f, t in zip(found, truth, strict=True)) / (k * len(queries))
    alone = sum(len({i for _, i in r} & t) for r, t in zip(rough, truth, strict=True)) / (k * len(queries))
    return ranked, alone


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--home", type=Path, default=Path("bench/out/mcp"))
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument(
        "--index-mib",
        type=int,
        default=None,
        help="the cross-session index's bound (default: crossindex.MAX_BYTES); 0: rank session by session",
    )
    args = parser.parse_args()
    if args.index_mib is not None:
        crossindex.MAX_BYTES = args.index_mib * 2**20
    build(args.home, args.sessions, args.messages)
    corpus = Corpus(seed=99)
    with Memory.open(args.home, embedder=HashEmbedder()) as mem:
        ctx = Context(mem, Catalog(mem))
        meter = Meter(ctx)
        for size, label in ((None, "list_sessions (20/page)"), (100, "list_sessions (100/page)")):
            query: dict[str, Any] = {} if size is None else {"limit": size}
            seen = 0
            while True:
                page = meter.call(
                    label if seen or size else "list_sessions first page (cold)", "list_sessions", query
                )
                seen += len(page["sessions"])
                if "nextCursor" not in page:
                    break
                query = {**query, "cursor": page["nextCursor"]}
            assert seen == page["total"], (seen, page["total"])
        meter.call("list_sessions query='chat-0001'", "list_sessions", {"query": "chat-0001"})
        meter.call(
            "list_sessions since/until", "list_sessions", {"since": "2022-06-01", "until": "2022-06-30"}
        )
        words = [" ".join(corpus.english().split()[:3]) for _ in range(args.queries)]
        hanzi = [corpus.chinese()[:4] for _ in range(args.queries // 4)]
        hits: list[dict[str, Any]] = []
        before = 0.0
        for match in ("keyword", "hybrid", "semantic"):
            if match == "hybrid":
                before = peak_mb()
            for q in words + hanzi:
                found = meter.call(f"search {match}", "search", {"query": q, "match": match})
                hits += found["hits"][:1]
                if "nextCursor" in found and q in words[:10]:
                    meter.call(
                        f"search {match} page 2",
                        "search",
                        {"query": q, "match": match, "cursor": found["nextCursor"]},
                    )
        for q in words[:10]:
            meter.call(
                "search hybrid role+dates",
                "search",
                {"query": q, "role": "user", "since": "2022-01-01", "until": "2022-12-31"},
            )
            meter.call("search keyword limit 50", "search", {"query": q, "match": "keyword", "limit": 50})
        for hit in hits[:30]:
            meter.call("read around a hit", "read", hit["read"])
        for s in ("chat-00000", f"chat-{args.sessions // 2:05d}"):
            for order in ("oldest", "newest"):
                query = {"session": s, "order": order, "limit": 50}
                while True:
                    page = meter.call(f"read whole session ({order}, 50)", "read", query)
                    if "nextCursor" not in page:
                        break
                    query = {**query, "cursor": page["nextCursor"]}
        cursor, pages, biggest, t0 = None, 0, 0, time.perf_counter()
        while True:
            listed, cursor = resources.list_page(ctx, cursor)
            pages += 1
            wire = server.resources_result(listed, cursor)
            biggest = max(biggest, len(wire.model_dump_json(by_alias=True, exclude_none=True)))
            if cursor is None:
                break
        per_page = (time.perf_counter() - t0) / pages * 1000
        print(
            f"\n{len(mem.sessions()):,} sessions; page bound {PAGE_CHARS:,} characters (issue: {BOUND:,})\n"
        )
        fine = meter.report()
        print(f"resources/list: {pages} pages, {per_page:.1f} ms/page, {biggest:,} characters at most")
        fine = fine and biggest <= BOUND
        search_p95 = max(
            sorted(t)[min(len(t) - 1, int(len(t) * 0.95))]
            for label, (t, _) in meter.rows.items()
            if label.startswith("search") and "page 2" not in label
        )
        print(f"search p95 (worst kind): {search_p95 * 1000:.0f} ms (issue: < 300 ms)")
        print("every page within bound" if fine else "SOME PAGE IS OVER THE BOUND")
        peak = peak_mb()
        with mem._store.read() as conn:
            vectors = int(conn.execute("SELECT COUNT(*) FROM vectors").scalar_one())
        size = vectors * crossindex.row_bytes(mem.semantic.embedder().dim)
        held = "held" if size <= crossindex.MAX_BYTES else "not held: searches went session by session"
        print(
            f"peak RSS {before:.0f} MB before the first semantic search, {peak:.0f} MB after all; "
            f"the cross-session index of {vectors:,} vectors: {size / 2**20:.0f} MB "
            f"(bound {crossindex.MAX_BYTES / 2**20:.0f} MiB: {held})"
        )
        ranked, alone = recall(mem, words + hanzi)
        print(f"semantic recall@10 against exact float32: {ranked:.3f} (int8 scores alone: {alone:.3f})")


if __name__ == "__main__":
    main()
