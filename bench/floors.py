"""How the similarity floors of message search were chosen (``engine.semantic.floors``).

    python -m bench.floors [--embedders e5,use,hash] [--eval-dir ../shared/eval]

For each embedder and each evaluation set (``locomo-dev.json``, ``zh-dev.json``; imported by the
retrieval protocol, ``bench.evalconv``), every question's 10 nearest messages in its session are ranked
by vectors alone, and then cut at each candidate floor: semantic hit@1/5/10 with the floor, and how many
of the 10 results a query keeps, for the questions themselves ("on-topic"), for 200 questions of the
other set ("off-topic") and for 10 queries about things neither set talks of ("unrelated"). A floor is
good when it keeps the on-topic hits and drops the rest; the engine takes the highest floor that costs at
most 0.005 hit@10 on either set. Embeddings are cached in ``bench/out`` as in ``bench.retrieval``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from bench.evalconv import Conversation, import_into, load
from bench.retrieval import CachedEmbedder, Scores, rank_of
from engine import Memory
from engine.embedders.chooser import select

SETS = ("locomo-dev", "zh-dev")
UNRELATED = [
    "kubernetes ramen",
    "quarterly tax filing deadline for freelancers",
    "how do I reset my router password",
    "best recipe for sourdough bread",
    "Python asyncio event loop error",
    "太空站的軌道高度是多少",
    "如何申請護照",
    "股票期權的稅務問題",
    "the capital of Mongolia",
    "GPU driver crash on Linux",
]
FLOORS = {"e5": np.arange(0.70, 0.92, 0.02)}
DEFAULT_FLOORS = np.arange(0.0, 0.80, 0.05)

Ranked = list[tuple[int, float]]


def kept(lists: list[Ranked], floor: float) -> float:
    return float(np.mean([sum(1 for _, s in pairs if s >= floor) for pairs in lists]))


def measure(embedder: CachedEmbedder, name: str, sets: dict[str, list[Conversation]]) -> None:
    for set_name, conversations in sets.items():
        other = next(n for n in sets if n != set_name)
        with tempfile.TemporaryDirectory() as home, Memory.open(home, embedder=embedder) as mem:
            ids = {c.sample_id: import_into(mem, c) for c in conversations}
            mem.wait_idle()
            on: list[tuple[Ranked, set[int]]] = []
            for conv in conversations:
                for q in conv.questions:
                    wanted = {ids[conv.sample_id][d] for d in q.evidence if d in ids[conv.sample_id]}
                    pairs = mem.semantic.search_vectors(q.text, session=conv.sample_id, scope="all", k=10)
                    on.append((pairs, wanted))
            session = conversations[0].sample_id
            questions = [q.text for c in sets[other] for q in c.questions][:200]
            off = [mem.semantic.search_vectors(t, session=session, scope="all", k=10) for t in questions]
            unrelated = [
                mem.semantic.search_vectors(t, session=session, scope="all", k=10) for t in UNRELATED
            ]
        print(f"\n== {set_name}, {name} ({embedder.id})")
        print("floor  hit@1  hit@5 hit@10   kept: on-topic off-topic unrelated")
        for floor in FLOORS.get(name, DEFAULT_FLOORS):
            scores = Scores()
            for pairs, wanted in on:
                scores.add("x", 1, rank_of([i for i, s in pairs if s >= floor], wanted))
            h1, h5, h10, _ = Scores.summary(scores.ranks[("x", 0)])
            print(
                f"{floor:5.2f} {h1:6.3f} {h5:6.3f} {h10:6.3f}   {kept([p for p, _ in on], floor):14.1f} "
                f"{kept(off, floor):10.1f} {kept(unrelated, floor):9.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--embedders", default="e5,use,hash")
    parser.add_argument("--eval-dir", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--cache", type=Path, default=Path("bench/out"), help="embedding cache folder")
    args = parser.parse_args()
    sets = {name: load(args.eval_dir / f"{name}.json") for name in SETS}
    for name in args.embedders.split(","):
        embedder = CachedEmbedder(select(name)[0], args.cache)
        measure(embedder, name, sets)
        embedder.save()


if __name__ == "__main__":
    main()
