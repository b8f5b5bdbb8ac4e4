"""Reciprocal-rank fusion of ranked lists (hybrid search).

Hybrid search fuses three rankings: keyword search over each message read with the turn before it
(``engine.contextfts``), the semantic ranking, and plain keyword search (each message alone, which
ranks exact matches first). Each list contributes its top ``max(depth, limit)`` items.

Each list gives an item ``weight / (k + rank)`` (rank 1 = best); an item's score is the sum over the lists
it appears in. ``k = 60`` is the usual constant; the depths and weights memtray uses were set by
measurement on the evaluation data (``bench/retrieval.py``; figures in ``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60
KEYWORD_DEPTH = 10
SEMANTIC_DEPTH = 10
KEYWORD_WEIGHT = 1.0
SEMANTIC_WEIGHT = 1.0
PLAIN_WEIGHT = 0.5
"""Weight of plain keyword search (each message alone) beside the context keyword ranking."""
WEAK_SEMANTIC_WEIGHT = 0.5
WEAK_EMBEDDERS = ("use-", "hash-")
"""Embedders that retrieve clearly worse than keywords on the evaluation: their ranking counts less."""


def semantic_weight(embedder_id: str) -> float:
    return WEAK_SEMANTIC_WEIGHT if embedder_id.startswith(WEAK_EMBEDDERS) else SEMANTIC_WEIGHT


def fuse(rankings: Sequence[tuple[Sequence[int], float]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ``(ids best first, weight)`` rankings; return ``(id, score)`` best first (ties: newer id)."""
    scores: dict[int, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)
