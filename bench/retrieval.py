"""Retrieval quality on a LoCoMo-format set through ``engine.Memory``: hit@1/5/10 and MRR per mode and category.

    python -m bench.retrieval PATH [--embedders e5,use,hash] [--previous-turn] [--sweep]

PATH is ``locomo-dev.json`` (English) or ``zh-dev.json`` (Traditional Chinese). For each embedder, every
conversation is imported into a fresh memory (``bench.evalconv``), the embedding queue is drained
(``wait_idle``), and each question of categories 1-4 is searched in its session with limit 10 by keyword,
semantic and hybrid search. ``--previous-turn`` embeds each message with the turn before it
(``engine.semantic.rows.PREVIOUS_TURN``). ``--sweep`` also ranks each question with other settings of the
context ranking (``engine.search.context``: the column weights of the context index for English queries,
the neighbour shares for CJK ones) and fuses the rankings with other depths and list weights, to choose
``engine.search.fusion``'s constants for the set's script; ``SWEEP_TOP=N`` prints the best N fusions. ``--dump FILE`` writes every question's rankings, from which
``bench.fusion_tune`` replays the fusion with other constants (the keyword confidence, the CJK support, the
neighbours' share: what ``--sweep`` does not vary).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench import realhistory
from bench.evalconv import Conversation, import_into, load
from engine import Memory
from engine.embedders import Embedder
from engine.embedders.chooser import select
from engine.search import conductor, fusion
from engine.search import context as contextfts
from engine.search.query import parse
from engine.semantic import floors, passages, rows
from engine.sessions import archive

MODES = ("keyword", "semantic", "hybrid")


class CachedEmbedder:
    """An embedder whose vectors are kept on disk between runs (the same texts recur in every run)."""

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        # an encoder's revision names its vectors too (the same embedder id may compute them anew)
        revision = getattr(inner, "revision", "")
        self.path = folder / f"cache-{inner.id}{'-' + revision if revision else ''}.pkl"
        self.memo: dict[tuple[str, str], np.ndarray] = (
            pickle.loads(self.path.read_bytes()) if self.path.exists() else {}
        )

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if ("d", t) not in self.memo]
        if missing:
            for t, v in zip(missing, self.inner.encode_documents(missing), strict=True):
                self.memo[("d", t)] = v
        return np.stack([self.memo[("d", t)] for t in texts])

    def count_tokens(self, text: str) -> int:
        """The inner embedder's token count (what the engine cuts long messages into passages by)."""
        counter = getattr(self.inner, "count_tokens", None)
        return int(counter(text)) if callable(counter) else passages.estimate(text)

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
        self.ranks: dict[tuple[str, int | str], list[int | None]] = defaultdict(list)

    def add(self, mode: str, category: int | str, rank: int | None) -> None:
        self.ranks[(mode, category)].append(rank)
        self.ranks[(mode, 0)].append(rank)

    @staticmethod
    def summary(ranks: list[int | None]) -> tuple[float, float, float, float]:
        n = len(ranks) or 1
        hit = [sum(1 for r in ranks if r is not None and r <= k) / n for k in (1, 5, 10)]
        mrr = sum(1.0 / r for r in ranks if r is not None) / n
        return hit[0], hit[1], hit[2], mrr

    def table(self, modes: Sequence[str]) -> str:
        lines = ["mode                 cat    n  hit@1  hit@5 hit@10    MRR"]
        labels = sorted({c for _, c in self.ranks if c != 0}, key=str)
        for mode in modes:
            for category in (0, *labels):
                ranks = self.ranks.get((mode, category), [])
                if not ranks:
                    continue
                h1, h5, h10, mrr = self.summary(ranks)
                name = "all" if category == 0 else str(category)
                lines.append(
                    f"{mode:9s} {name:>14.14s} {len(ranks):4d} {h1:6.3f} {h5:6.3f} {h10:6.3f} {mrr:6.3f}"
                )
        return "\n".join(lines)


COLUMN_WEIGHTS = ((1.0, 1.0, 0.0), (0.0, 1.0, 0.0), (0.5, 1.0, 0.0), (0.5, 1.0, 0.5), (1.0, 1.0, 1.0))
"""Column weights of ``context_fts`` tried for queries without CJK text."""
NEIGHBOUR_WEIGHTS = ((0.0, 0.0), (0.25, 0.0), (0.5, 0.0), (0.5, 0.25), (0.5, 0.5), (1.0, 0.0))
"""Neighbour shares (previous, next turn) tried for queries with CJK text."""
DEPTHS = (20, 50)
SEMANTIC_WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5)
PLAIN_WEIGHTS = (0.0, 0.1, 0.25, 0.5)
SENDER_BOOSTS = (0.0, 0.1, 0.2, 0.3)


def context_label(cjk: bool, values: tuple[float, ...]) -> str:
    return ("nb=" if cjk else "cols=") + ",".join(f"{c:g}" for c in values)


def fusion_label(context: str, depth: int, ws: float, wp: float) -> str:
    return f"{context} d={depth} ws={ws:g} wp={wp:g}"


def context_variants(mem: Memory, session: str, question: str) -> dict[str, list[tuple[int, float]]]:
    """The context ranking of the question under each tried setting (column or neighbour weights)."""
    query = parse(question)
    found: dict[str, list[tuple[int, float]]] = {}
    if query.has_cjk:
        chosen_nb = contextfts.NEIGHBOUR_WEIGHTS
        try:
            for nb in NEIGHBOUR_WEIGHTS:
                contextfts.NEIGHBOUR_WEIGHTS = nb
                context, _ = mem._search.keyword_ranking(
                    query, session=session, scope="all", depth=max(DEPTHS)
                )
                found[context_label(True, nb)] = context
        finally:
            contextfts.NEIGHBOUR_WEIGHTS = chosen_nb
        return found
    chosen = contextfts.COLUMN_WEIGHTS
    try:
        for columns in COLUMN_WEIGHTS:
            contextfts.COLUMN_WEIGHTS = columns
            context, _ = mem._search.keyword_ranking(query, session=session, scope="all", depth=max(DEPTHS))
            found[context_label(False, columns)] = context
    finally:
        contextfts.COLUMN_WEIGHTS = chosen
    return found


def sweep_fusions(
    mem: Memory,
    session: str,
    question: str,
    category: int,
    wanted: set[int],
    scores: Scores,
    sweeps: dict[str, Scores],
) -> None:
    """Score the question with other context settings, depths and list weights (``engine.search.fusion.fuse``)."""
    assert mem.semantic is not None
    embedder_id = mem.semantic.embedder().id
    raw = mem.semantic.search_vectors(question, session=session, scope="all", k=max(DEPTHS))
    semantic = floors.above(raw, embedder_id)
    _, plain = mem._search.keyword_ranking(question, session=session, scope="all", depth=max(DEPTHS))
    for label, context in context_variants(mem, session, question).items():
        scores.add(f"context {label}", category, rank_of([i for i, _ in context][:10], wanted))
        for depth in DEPTHS:
            for ws in SEMANTIC_WEIGHTS:
                for wp in PLAIN_WEIGHTS:
                    fused = fusion.fuse([(context[:depth], 1.0), (semantic[:depth], ws), (plain[:depth], wp)])
                    top = [i for i, _ in fused][:10]
                    sweeps[fusion_label(label, depth, ws, wp)].add("x", category, rank_of(top, wanted))
    for depth in DEPTHS:  # no floor: the whole semantic ranking (min-max), the fusion before floors
        w = fusion.weights(parse(question), embedder_id)
        context, _ = mem._search.keyword_ranking(question, session=session, scope="all", depth=depth)
        fused = fusion.fuse([(context, 1.0), (raw[:depth], w.semantic), (plain[:depth], w.plain)])
        sweeps[f"current weights, no floor, d={depth}"].add(
            "x", category, rank_of([i for i, _ in fused][:10], wanted)
        )
    query = parse(question)
    context, plain = mem._search.keyword_ranking(query, session=session, scope="all", depth=fusion.DEPTH)
    w = fusion.weights(query, embedder_id)
    fused = fusion.fuse([(context, w.context), (semantic[: fusion.DEPTH], w.semantic), (plain, w.plain)])
    with mem._store.read() as conn:
        senders = {i: m.sender for i, m in archive.by_ids(conn, [i for i, _ in fused]).items()}
    named = fusion.named_among(senders, query)
    for value in SENDER_BOOSTS:
        top = [i for i, _ in fusion.boosted(fused, named, value)][:10]
        sweeps[f"current, sender boost {value:g}"].add("x", category, rank_of(top, wanted))


def _figures(sc: Scores) -> str:
    return " ".join(f"{v:.3f}" for v in Scores.summary(sc.ranks[("x", 0)]))


def print_sweep(sweeps: dict[str, Scores], scores: Scores, cjk: bool, embedder_id: str) -> None:
    """The best fusions by hit@10, those at or above both single modes at every cut-off, and the current one."""
    fusions = [(label, sc) for label, sc in sweeps.items() if label.startswith(("cols=", "nb="))]
    ranked = sorted(fusions, key=lambda kv: Scores.summary(kv[1].ranks[("x", 0)])[2], reverse=True)
    print("best fusions by hit@10 (hit@1 hit@5 hit@10 MRR):")
    for label, sc in ranked[: int(os.environ.get("SWEEP_TOP", "15"))]:
        print(f"  {label:34s} {_figures(sc)}")
    floor = [
        max(a, b)
        for a, b in zip(*(Scores.summary(scores.ranks[(m, 0)]) for m in ("keyword", "semantic")), strict=True)
    ]
    above = [
        (label, sc)
        for label, sc in fusions
        if all(v >= f for v, f in zip(Scores.summary(sc.ranks[("x", 0)]), floor, strict=True))
    ]
    above.sort(key=lambda kv: Scores.summary(kv[1].ranks[("x", 0)])[0], reverse=True)
    print(
        f"fusions at or above keyword and semantic at every cut-off: {len(above)} of {len(fusions)}; best by hit@1:"
    )
    for label, sc in above[:10]:
        print(f"  {label:34s} {_figures(sc)}")
    chosen = fusion.CJK if cjk else fusion.WORDS
    nb = contextfts.NEIGHBOUR_WEIGHTS if cjk else contextfts.COLUMN_WEIGHTS
    w = fusion.weights(parse("記" if cjk else "x"), embedder_id)
    current = fusion_label(context_label(cjk, nb), fusion.DEPTH, w.semantic, chosen.plain)
    if current in sweeps:
        print(f"  current {current}: {_figures(sweeps[current])}")
    for label in sorted(k for k in sweeps if k.startswith("current weights")):
        print(f"  {label}: {_figures(sweeps[label])}")
    print("the current fusion with other sender boosts (hit@1 hit@5 hit@10 MRR):")
    for value in SENDER_BOOSTS:
        label = f"current, sender boost {value:g}"
        print(f"  {label:28s} {_figures(sweeps[label])}")


@dataclass(frozen=True)
class Case:
    """One question to search: in ``session`` (None: in all), a hit when a result is in ``wanted``."""

    session: str | None
    text: str
    category: int | str
    wanted: frozenset[int]


def import_set(mem: Memory, path: Path) -> tuple[int, list[Case]]:
    """Import a LoCoMo-format file or a real-history folder (:mod:`bench.realhistory`); return the
    messages stored and the questions."""
    if realhistory.is_history(path):
        asked = realhistory.questions(path)
        total = realhistory.import_into(mem, path)
        answers = realhistory.answer_ids(mem, asked)
        return total, [Case(None, q.text, q.kind, frozenset({answers[q.answer]})) for q in asked]
    conversations: list[Conversation] = load(path)
    cases = []
    for conv in conversations:
        ids = import_into(mem, conv)
        for q in conv.questions:
            wanted = frozenset(ids[d] for d in q.evidence if d in ids)
            cases.append(Case(conv.sample_id, q.text, q.category, wanted))
    return sum(len(c.turns) for c in conversations), cases


def dump_rankings(mem: Memory, case: Case) -> dict[str, object]:
    """What every ranking of hybrid search gives one question, for tuning the fusion offline: the
    context and plain keyword rankings, the vectors' ranking without floors and the query's cosine with
    the centroid, each :data:`engine.search.conductor.RANK_DEPTH` deep; the senders, sessions and roles of
    all of them (and of the vectors' neighbours), and which of them ask a question."""
    assert mem.semantic is not None
    query = parse(case.text)
    context, plain = mem._search.keyword_ranking(
        query, session=case.session, scope="all", depth=conductor.RANK_DEPTH
    )
    raw, base = mem.semantic.search_meaning(
        query.text, session=case.session, scope="all", k=conductor.RANK_DEPTH
    )
    ids = {i for i, _ in context} | {i for i, _ in plain} | {i + d for i, _ in raw for d in (-1, 0, 1)}
    with mem._store.read() as conn:
        found = archive.by_ids(conn, sorted(ids))
    senders = {i: m.sender for i, m in found.items()}
    return {
        "text": case.text, "session": case.session, "category": case.category, "wanted": sorted(case.wanted),
        "cjk": query.has_cjk, "context": context, "plain": plain, "semantic": raw, "base": base,
        "named": sorted(i for i, s in senders.items() if s and query.names(s)),
        "sessions": {str(i): m.session for i, m in found.items()},
        "roles": {str(i): m.role for i, m in found.items()},
        "sent": {str(i): m.send_at for i, m in found.items()},
        "asks": sorted(i for i, m in found.items() if fusion.asks(m.content)),
    }  # fmt: skip


def run(path: Path, embedder: Embedder, name: str, sweep: bool, dump: Path | None = None) -> None:
    scores = Scores()
    latency: dict[str, list[float]] = defaultdict(list)
    sweeps: dict[str, Scores] = defaultdict(Scores)
    dumped: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home, embedder=embedder)
        started = time.perf_counter()
        total, cases = import_set(mem, path)
        mem.wait_idle()
        embed_s = time.perf_counter() - started
        assert mem.semantic is not None
        for case in cases:
            for mode in MODES:
                t = time.perf_counter()
                hits = mem.search(case.text, session=case.session, match=mode, limit=10)
                latency[mode].append((time.perf_counter() - t) * 1000)
                scores.add(mode, case.category, rank_of([h.message.id or 0 for h in hits], case.wanted))
            if sweep and case.session is not None and isinstance(case.category, int):
                sweep_fusions(mem, case.session, case.text, case.category, set(case.wanted), scores, sweeps)
            if dump is not None:
                dumped.append(dump_rankings(mem, case))
        mem.close()
    if dump is not None:
        dump.write_text(json.dumps({"embedder": embedder.id, "cases": dumped}), encoding="utf-8")
    print(f"\n== embedder {name} ({embedder.id}); previous turn embedded: {rows.PREVIOUS_TURN}")
    print(f"imported {total} turns, embedded in {embed_s:.1f}s ({total / embed_s:.0f} msg/s)")
    contexts = sorted({mode for mode, _ in scores.ranks if mode.startswith("context ")})
    print(scores.table([*MODES, *contexts] if sweep else MODES), flush=True)
    for mode in MODES:
        values = sorted(latency[mode])
        p95 = values[int(len(values) * 0.95) - 1]
        print(f"latency {mode:8s} p50 {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms")
    if sweep:
        cjk = any(parse(c.text).has_cjk for c in cases)
        print_sweep(sweeps, scores, cjk, embedder.id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path)
    parser.add_argument("--embedders", default="e5,use")
    parser.add_argument(
        "--previous-turn", choices=("on", "off"), default=None, help="default: the engine's choice"
    )
    parser.add_argument("--cache", type=Path, default=Path("bench/out"), help="embedding cache folder")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument(
        "--dump", type=Path, default=None, help="write every question's rankings (JSON) for offline tuning"
    )
    parser.add_argument(
        "--exact-matches",
        type=int,
        default=None,
        help="rows up to which the context ranking is exact (engine.search.context.EXACT_MATCHES); "
        "-1 forces the bounded path of large homes on every query",
    )
    args = parser.parse_args()
    if args.exact_matches is not None:
        contextfts.EXACT_MATCHES = args.exact_matches
    if args.previous_turn is not None:
        rows.PREVIOUS_TURN = args.previous_turn == "on"
    for name in args.embedders.split(","):
        embedder = CachedEmbedder(select(name)[0], args.cache)
        dump = args.dump.with_name(f"{args.dump.stem}-{name}{args.dump.suffix}") if args.dump else None
        run(args.path, embedder, name, args.sweep, dump)
        embedder.save()


if __name__ == "__main__":
    main()
