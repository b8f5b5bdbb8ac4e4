"""Score fusion of ranked lists (hybrid search).

Hybrid search fuses three rankings: keyword search over each message read between its neighbours
(``engine.search.context``: the context index for words, the neighbours' plain scores for CJK text), the
semantic ranking (only vectors at the embedder's similarity floor), and plain keyword search (each message
alone). Each list contributes its best :data:`DEPTH` items, and holds only matches, so the fused list
does too.

When the query names the sender of a candidate ("what did Caroline say about ..."), that candidate gets
:data:`SENDER_BOOST` on top: people ask about what someone said, and on the evaluation data this lifts
hit@1 by seven points. Names match whole words, ignoring case; a name in CJK script matches anywhere
(:func:`engine.search.query.named_in`).

Each list's scores are scaled to [:data:`MEMBER_SHARE`, 1] (min-max within the list; a list of equal
scores counts 1 for every item) and multiplied by the list's weight; an item's score is the sum over the
lists it appears in. On the evaluation data this fusion of scores beats reciprocal-rank fusion at every
cut-off, most at hit@1: a keyword match far ahead of the rest keeps its lead, which rank fusion throws
away. The weights depend on the query's script (:func:`weights`): on the Chinese evaluation set the vectors
deserve twice the weight they get for English. The depth and weights were set by measurement
(``bench/retrieval.py --sweep``; figures in ``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.search.query import Query

DEPTH = 50


@dataclass(frozen=True)
class Weights:
    """The weight of each ranked list in the fusion.

    Attributes:
        context: keyword search over each message between its neighbours.
        semantic: the vectors' ranking (of the embedders that retrieve well; see :func:`weights`).
        plain: plain keyword search, each message alone.
    """

    context: float
    semantic: float
    plain: float


WORDS = Weights(context=1.0, semantic=0.5, plain=0.1)
"""Queries without CJK text (set on the English evaluation set): plain keyword search breaks ties."""
CJK = Weights(context=1.0, semantic=1.0, plain=0.1)
"""Queries with CJK text (set on the Traditional-Chinese evaluation set)."""
WEAK_SEMANTIC_SCALE = 0.6
"""The semantic weight is scaled by this for the embedders of :data:`WEAK_EMBEDDERS`."""
WEAK_EMBEDDERS = ("use-", "hash-")
"""Embedders that retrieve clearly worse than keywords on the evaluation: their ranking counts less."""

SENDER_BOOST = 0.2
"""Added to a candidate whose sender the query names (the fused scores run from 0 to about 1.5)."""

Scored = Sequence[tuple[int, float]]


def weights(query: Query, embedder_id: str | None) -> Weights:
    """The list weights for ``query`` (by its script) with the vectors of ``embedder_id`` (None: no
    vectors, their weight is 0)."""
    chosen = CJK if query.has_cjk else WORDS
    if embedder_id is None:
        return Weights(chosen.context, 0.0, chosen.plain)
    if embedder_id.startswith(WEAK_EMBEDDERS):
        return Weights(chosen.context, chosen.semantic * WEAK_SEMANTIC_SCALE, chosen.plain)
    return chosen


MEMBER_SHARE = 0.01
"""What the worst item of a list still counts (of the list's weight): every item of a list is a match, so
none scores 0 (the ranking is that of plain min-max scaling, within 0.002 hit@k on the evaluation sets)."""


def normalized(items: Scored) -> list[tuple[int, float]]:
    """``(id, score)`` scaled so the best is 1 and the worst :data:`MEMBER_SHARE` (all 1 when the scores
    are equal)."""
    if not items:
        return []
    low = min(score for _, score in items)
    span = max(score for _, score in items) - low
    if span <= 1e-12:
        return [(item, 1.0) for item, _ in items]
    return [(item, MEMBER_SHARE + (1 - MEMBER_SHARE) * (score - low) / span) for item, score in items]


def fuse(rankings: Sequence[tuple[Scored, float]]) -> list[tuple[int, float]]:
    """Fuse ``(list of (id, score), weight)`` rankings; return ``(id, score)`` best first (ties: newer id)."""
    scores: dict[int, float] = {}
    for items, weight in rankings:
        if weight <= 0:
            continue
        for item, value in normalized(items):
            scores[item] = scores.get(item, 0.0) + weight * value
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)


def prefer_named_senders(
    fused: Sequence[tuple[int, float]], senders: Mapping[int, str], query: Query
) -> list[tuple[int, float]]:
    """Add :data:`SENDER_BOOST` to the candidates whose sender ``query`` names; best first again."""
    named = {sender: query.names(sender) for sender in set(senders.values()) if sender}
    if not any(named.values()):
        return list(fused)
    boosted = [
        (item, score + SENDER_BOOST if named.get(senders.get(item, ""), False) else score)
        for item, score in fused
    ]
    return sorted(boosted, key=lambda pair: (pair[1], pair[0]), reverse=True)
