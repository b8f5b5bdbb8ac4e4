"""Retrieval quality on LoCoMo through ``engine.Memory``: hit@1/5/10 and MRR per mode and category.

    python -m bench.retrieval PATH [--embedders e5,use,hash] [--previous-turn] [--sweep]

For each embedder, every conversation is imported into a fresh memory (``bench.evalconv``), the
embedding queue is drained (``wait_idle``), and each question of categories 1-4 is searched in its
session with limit 10 by keyword, semantic and hybrid search. ``--previous-turn`` embeds each message
with the turn before it (``engine.vectors.rows.PREVIOUS_TURN``). ``--sweep`` also fuses the keyword and
semantic rankings offline with other RRF depths and weights, to choose ``engine.hybrid``'s constants.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.evalconv import Conversation, import_into, load
from engine import Memory, hybrid, search
from engine.embedders import Embedder
from engine.embedders.chooser import select
from engine.vectors import rows

MODES = ("keyword", "semantic", "hybrid")


class CachedEmbedder:
    """An embedder whose vectors are kept on disk between runs (the same texts recur in every run)."""

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"cache-{inner.id}.pkl"
        self.memo: dict[tuple[str, str], np.ndarray] = (
            pickle.loads(self.path.read_bytes()) if self.path.exists() else {}
        )

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if ("d", t) not in self.memo]
        if missing:
            for t, v in zip(missing, self.inner.encode_documents(missing), strict=True):
                self.memo[("d", t)] = v
        return np.stack([self.memo[("d", t)] for t in texts])

    def encode_query(self, text: str) -> np.ndarray:
        if ("q", text) not in self.memo:
            self.memo[("q", text)] = self.inner.encode_query(text)
        return self.memo[("q", text)]

    def save(self) -> None:
        self.path.write_bytes(pickle.dumps(self.memo))


def rank_of(ids: Sequence[int], wanted: set[int]) -> int | None:
    for rank, item in enumerate(ids, start=1):
        if item in wanted:
            return rank
    return None


class Scores:
    def __init__(self) -> None:
        self.ranks: dict[tuple[str, int], list[int | None]] = defaultdict(list)

    def add(self, mode: str, category: int, rank: int | None) -> None:
        self.ranks[(mode, category)].append(rank)
        self.ranks[(mode, 0)].append(rank)

    @staticmethod
    def summary(ranks: list[int | None]) -> tuple[float, float, float, float]:
        n = len(ranks) or 1
        hit = [sum(1 for r in ranks if r is not None and r <= k) / n for k in (1, 5, 10)]
        mrr = sum(1.0 / r for r in ranks if r is not None) / n
        return hit[0], hit[1], hit[2], mrr

    def table(self, modes: Sequence[str]) -> str:
        lines = ["mode                      cat    n  hit@1  hit@5 hit@10    MRR"]
        for mode in modes:
            for category in (0, 1, 2, 3, 4):
                ranks = self.ranks.get((mode, category), [])
                if not ranks:
                    continue
                h1, h5, h10, mrr = self.summary(ranks)
                name = "all" if category == 0 else str(category)
                lines.append(
                    f"{mode:24s} {name:>4s} {len(ranks):4d} {h1:6.3f} {h5:6.3f} {h10:6.3f} {mrr:6.3f}"
                )
        return "\n".join(lines)


def run(path: Path, embedder: Embedder, name: str, sweep: bool) -> None:
    conversations: list[Conversation] = load(path)
    scores = Scores()
    latency: dict[str, list[float]] = defaultdict(list)
    sweeps: dict[str, Scores] = defaultdict(Scores)
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home, embedder=embedder)
        started = time.perf_counter()
        ids = {c.sample_id: import_into(mem, c) for c in conversations}
        mem.wait_idle()
        embed_s = time.perf_counter() - started
        assert mem.semantic is not None
        for conv in conversations:
            for q in conv.questions:
                wanted = {ids[conv.sample_id][d] for d in q.evidence if d in ids[conv.sample_id]}
                for mode in MODES:
                    t = time.perf_counter()
                    hits = mem.search(q.text, session=conv.sample_id, match=mode, limit=10)
                    latency[mode].append((time.perf_counter() - t) * 1000)
                    scores.add(mode, q.category, rank_of([h.message.id or 0 for h in hits], wanted))
                if sweep:
                    with mem.store.read() as conn:
                        plain = search.keyword_search(
                            conn,
                            q.text,
                            session_id=conv.sample_id,
                            scope="all",
                            after_ns=0,
                            limit=100,
                            tables=mem.store.fts_tables,
                        )
                    lists = {
                        "plain": [h.message.id or 0 for h in plain],
                        "context": mem.semantic.keyword_ranking(
                            q.text, session=conv.sample_id, scope="all", after_ns=0, depth=100
                        )[0],
                    }
                    sem_ids = [
                        i
                        for i, _ in mem.semantic.search_vectors(
                            q.text, session=conv.sample_id, scope="all", k=100
                        )
                    ]
                    for source, kw_ids in lists.items():
                        scores.add(f"keyword-{source}", q.category, rank_of(kw_ids[:10], wanted))
                    for kd in (10, 20, 50):
                        for sd in (10, 20, 50):
                            for w in (0.5, 1.0):
                                for wp in (0.0, 0.3, 0.5, 1.0):
                                    fused = hybrid.fuse(
                                        [
                                            (lists["context"][:kd], 1.0),
                                            (sem_ids[:sd], w),
                                            (lists["plain"][:kd], wp),
                                        ]
                                    )
                                    label = f"kd={kd} sd={sd} ws={w} wp={wp}"
                                    top = [i for i, _ in fused][:10]
                                    sweeps[label].add("x", q.category, rank_of(top, wanted))
        mem.close()
    total = sum(len(c.turns) for c in conversations)
    print(f"\n== embedder {name} ({embedder.id}); previous turn embedded: {rows.PREVIOUS_TURN}")
    print(f"imported {total} turns, embedded in {embed_s:.1f}s ({total / embed_s:.0f} msg/s)")
    print(scores.table([*MODES, "keyword-plain", "keyword-context"] if sweep else MODES), flush=True)
    for mode in MODES:
        values = sorted(latency[mode])
        p95 = values[int(len(values) * 0.95) - 1]
        print(f"latency {mode:8s} p50 {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms")
    if sweep:
        ranked = sorted(sweeps.items(), key=lambda kv: Scores.summary(kv[1].ranks[("x", 0)])[2], reverse=True)
        print("best fusions by hit@10 (hit@1 hit@5 hit@10 MRR):")
        for label, sc in ranked[:12]:
            print(f"  {label:22s} " + " ".join(f"{v:.3f}" for v in Scores.summary(sc.ranks[("x", 0)])))
        current = (
            f"kd={hybrid.KEYWORD_DEPTH} sd={hybrid.SEMANTIC_DEPTH} "
            f"ws={hybrid.semantic_weight(embedder.id)} wp={hybrid.PLAIN_WEIGHT}"
        )
        if current in sweeps:
            print(
                f"  current {current}: "
                + " ".join(f"{v:.3f}" for v in Scores.summary(sweeps[current].ranks[("x", 0)]))
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path)
    parser.add_argument("--embedders", default="e5,use")
    parser.add_argument(
        "--previous-turn", choices=("on", "off"), default=None, help="default: the engine's choice"
    )
    parser.add_argument("--cache", type=Path, default=Path("bench/out"), help="embedding cache folder")
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    if args.previous_turn is not None:
        rows.PREVIOUS_TURN = args.previous_turn == "on"
    for name in args.embedders.split(","):
        embedder = CachedEmbedder(select(name)[0], args.cache)
        run(args.path, embedder, name, args.sweep)
        embedder.save()


if __name__ == "__main__":
    main()
