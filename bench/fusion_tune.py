"""Replay hybrid search's fusion on dumped rankings, with the engine's constants or others, to tune them.

    python -m bench.retrieval PATH --embedders e5 --dump out/rank.json     # writes out/rank-e5.json
    python -m bench.fusion_tune out/rank-e5.json [more dumps] [--grid JSON] [--split SEED]

Each dump holds, per question, the rankings hybrid search fuses (the context and plain keyword rankings,
the nearest vectors without floors and the query's cosine with the centroid). The replay is the engine's
fusion (:func:`fused` calls :func:`engine.search.fusion.combine`, as :class:`engine.search.conductor.Search`
does for the first :data:`engine.search.fusion.DEPTH`), so with the engine's constants it prints
``bench.retrieval``'s hybrid figures again, in seconds instead of a re-import.

``--grid`` varies :class:`engine.search.fusion.Weights` fields, e.g.
``'{"words.term_score": [3.5, 4.5], "cjk.support": [false, true]}'``, and prints each setting's
hit@1/5/10/MRR per dump, marked ``OK`` when hybrid is at or above keyword and semantic at every cut-off
on every dump. ``--split SEED`` halves each dump's questions at random: the grid's best by hit@1 + hit@10
on half A, then every setting's figures on half B.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections.abc import Sequence, Set
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.retrieval import Scores
from engine.search import fusion
from engine.search.query import Query, parse
from engine.semantic import floors

Case = dict[str, Any]
Ranking = list[tuple[int, float]]


def pairs(items: list[list[float]]) -> Ranking:
    return [(int(i), float(s)) for i, s in items]


class Dumped:
    """What the fusion reads of the messages it ranks (:class:`engine.search.fusion.Around`), from a dump."""

    def __init__(self, case: Case) -> None:
        self.case = case

    def sessions(self, ids: Set[int]) -> dict[int, str]:
        known = self.case["sessions"]
        return {i: known[str(i)] for i in ids if str(i) in known}

    def turns(self, ids: Set[int]) -> dict[int, fusion.Turn]:
        asking = set(self.case["asks"])
        roles = self.case["roles"]
        return {
            i: fusion.Turn(session, roles[str(i)], i in asking) for i, session in self.sessions(ids).items()
        }

    def named(self, ids: Sequence[int], query: Query) -> set[int]:
        return set(self.case["named"]) & set(ids)

    def sent(self, ids: Sequence[int]) -> dict[int, int]:
        known = self.case.get("sent", {})  # dumps before the dates were read have none
        return {i: known[str(i)] for i in ids if str(i) in known}


def fused(case: Case, embedder_id: str) -> list[int]:
    """The fused ranking's ids, as hybrid search ranks its first :data:`fusion.DEPTH`
    (:func:`engine.search.fusion.combine`, with the weights :func:`engine.search.fusion.weights` gives now:
    :func:`using` sets them)."""
    ranked = pairs(case["semantic"])
    combined = fusion.combine(
        parse(case["text"]),
        embedder_id,
        context=pairs(case["context"]),
        plain=pairs(case["plain"]),
        ranked=ranked,
        passed=floors.above(ranked, embedder_id, case["base"]),
        depth=fusion.DEPTH,
        around=Dumped(case),
    )
    return [i for i, _ in combined.ranking]


def figures(cases: list[Case], rank: Any) -> tuple[float, float, float, float]:
    found = []
    for case in cases:
        wanted = set(case["wanted"])
        found.append(next((k for k, i in enumerate(rank(case)[:10], 1) if i in wanted), None))
    return Scores.summary(found)


def text(values: tuple[float, ...]) -> str:
    return " / ".join(f"{v:.3f}" for v in values)


def using(values: dict[str, Any]) -> None:
    """Set :data:`fusion.WORDS` and :data:`fusion.CJK` to the engine's constants with ``values`` changed."""
    fusion.WORDS, fusion.CJK = ENGINE
    for key, value in values.items():
        which, field = key.split(".", 1)
        if which == "words":
            fusion.WORDS = replace(fusion.WORDS, **{field: value})
        else:
            fusion.CJK = replace(fusion.CJK, **{field: value})


ENGINE = (fusion.WORDS, fusion.CJK)


def report(dumps: dict[str, tuple[str, list[Case]]], settings: list[dict[str, Any]], label: str) -> None:
    print(f"\n== {label}: hit@1 / hit@5 / hit@10 / MRR")
    singles = {}
    for name, (embedder_id, cases) in dumps.items():
        keyword = figures(cases, lambda c: [i for i, _ in c["plain"]])
        semantic = figures(
            cases, lambda c, e=embedder_id: [i for i, _ in floors.above(pairs(c["semantic"]), e, c["base"])]
        )
        singles[name] = [max(a, b) for a, b in zip(keyword, semantic, strict=True)]
        print(f"{name} ({len(cases)}): keyword {text(keyword)}; semantic {text(semantic)}")  # fmt: skip
    for values in settings:
        using(values)
        rows = {n: figures(cases, lambda c, e=e: fused(c, e)) for n, (e, cases) in dumps.items()}
        ok = all(all(v >= f - 1e-9 for v, f in zip(r, singles[n], strict=True)) for n, r in rows.items())
        shown = " | ".join(f"{n} {text(r)}" for n, r in rows.items())
        print(f"{json.dumps(values) or 'engine'}: {shown}{'  OK' if ok else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--grid", default="{}", help="JSON: {'words.FIELD' or 'cjk.FIELD': [values]}")
    parser.add_argument("--split", type=int, default=None, help="choose on a random half, report the other")
    args = parser.parse_args()
    dumps = {}
    for path in args.dumps:
        data = json.loads(path.read_text(encoding="utf-8"))
        dumps[path.stem] = (data["embedder"], data["cases"])
    grid = json.loads(args.grid)
    settings = (
        [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())] if grid else []
    )
    if args.split is None:
        report(dumps, [{}, *settings], "all questions; {} = the engine's constants")
        return
    a: dict[str, tuple[str, list[Case]]] = {}
    b: dict[str, tuple[str, list[Case]]] = {}
    for name, (embedder_id, cases) in dumps.items():
        order = list(range(len(cases)))
        random.Random(args.split).shuffle(order)
        half = len(cases) // 2
        a[name] = (embedder_id, [cases[i] for i in order[:half]])
        b[name] = (embedder_id, [cases[i] for i in order[half:]])

    def objective(values: dict[str, Any]) -> float:
        using(values)
        total = 0.0
        for embedder_id, cases in a.values():
            h1, _, h10, _ = figures(cases, lambda c, e=embedder_id: fused(c, e))
            total += h1 + h10
        return total

    best = max(settings or [{}], key=objective)
    print(f"chosen on half A (seed {args.split}) by hit@1 + hit@10: {json.dumps(best)}")
    report(b, [{}, best], f"half B (seed {args.split}); {{}} = the engine's constants")


if __name__ == "__main__":
    main()
