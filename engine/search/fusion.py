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

Min-max scaling gives a keyword list's best item 1 however poorly it matches, so a question asked in
English about a Dutch conversation let a weak match of its common words beat the answer only the vectors
found. The keyword lists therefore count by :func:`keyword_confidence`: the context ranking's best BM25
per query term against :attr:`Weights.term_score` (a match of every term counts fully, one of a single
common word little). For CJK queries, whose answers e5 often lifts less above the memory as a whole than
the lift floor asks, :func:`supported` lets the cosine of a keyword match count below the similarity
floors (the floors still keep meaning-only matches out). For other queries a message's cosine gains a
share of its better neighbour's (:func:`neighbour_lifted`), as the context index reads a message's words
with its neighbours'. All were set on the English, Chinese and real-history sets (``bench/retrieval.py --dump`` writes every question's rankings to tune on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace

from engine.search.query import Query

DEPTH = 50


@dataclass(frozen=True)
class Weights:
    """The weight of each ranked list in the fusion.

    Attributes:
        context: keyword search over each message between its neighbours.
        semantic: the vectors' ranking (of the embedders that retrieve well; see :func:`weights`).
        plain: plain keyword search, each message alone.
        term_score: the context ranking's best BM25 per query term at which the keyword lists count fully
            (:func:`keyword_confidence`; 0: always fully).
        support: whether the vectors' ranking also counts, below the similarity floors, for messages the
            keyword rankings found (:func:`supported`).
        neighbours: the share of the distance to its better same-session neighbour's cosine that a
            message's cosine gains (:func:`neighbour_lifted`; 0: none).
    """

    context: float
    semantic: float
    plain: float
    term_score: float = 0.0
    support: bool = False
    neighbours: float = 0.0


WORDS = Weights(context=1.0, semantic=0.5, plain=0.1, term_score=4.5, neighbours=0.3)
"""Queries without CJK text (set on the English evaluation set and the real-history set): plain keyword
search breaks ties."""
CJK = Weights(context=1.0, semantic=1.0, plain=0.1, term_score=6.0, support=True)
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
        return replace(chosen, semantic=0.0, term_score=0.0)
    if embedder_id.startswith(WEAK_EMBEDDERS):  # the vectors never lead, nor count below their floor
        return replace(
            chosen,
            semantic=chosen.semantic * WEAK_SEMANTIC_SCALE,
            term_score=0.0,
            support=False,
            neighbours=0.0,
        )
    return chosen


def keyword_confidence(query: Query, context: Scored, chosen: Weights) -> float:
    """How fully the keyword lists count (0..1): the context ranking's best BM25 per query term, as a share
    of ``chosen.term_score`` (1 when that is 0, or when there is no context ranking).

    The lists are min-max scaled, so their best item scores 1 however poorly it matches; this share is
    what says "the words found nothing much": a question asked in English about a Dutch conversation, or
    in other words than were used, matches a few common words weakly, and the vectors' ranking then leads.
    Per term, so a long question is not taken for a confident one (BM25 adds up over the terms)."""
    if chosen.term_score <= 0 or not context:
        return 1.0
    best = max(score for _, score in context)
    return min(1.0, best / (chosen.term_score * max(1, len(query.terms))))


def neighbour_lifted(
    passed: Scored, cosines: Mapping[int, float], sessions: Mapping[int, str], share: float
) -> list[tuple[int, float]]:
    """``passed`` (the ranking at the similarity floors) re-ranked with each message's cosine raised by
    ``share`` of what its better neighbour (the message id before or after it, in the same session) has
    above it; ``cosines`` holds the cosines known (the nearest messages, below the floors too). An answer
    often says little by itself ("Yes, last Tuesday!") next to the turn that matches the question."""
    if share <= 0:
        return list(passed)
    lifted = []
    for item, score in passed:
        session = sessions.get(item)
        near = [
            cosines[other]
            for other in (item - 1, item + 1)
            if other in cosines and session is not None and sessions.get(other) == session
        ]
        best = max(near, default=score)
        lifted.append((item, score + share * max(0.0, best - score)))
    return sorted(lifted, key=lambda pair: (pair[1], pair[0]), reverse=True)


def supported(ranked: Scored, passed: Scored, worded: Set[int], chosen: Weights) -> list[tuple[int, float]]:
    """The vectors' list to fuse: ``passed`` (the ranking at the similarity floors), or, with
    ``chosen.support``, every item of ``ranked`` (the ranking without floors) that passed or that the
    keyword rankings found (``worded``): a keyword match's cosine counts even below the floors, which are
    set to refuse meaning-only matches. (On the Chinese set, where e5's lifts are small, this keeps answers
    the lift floor drops.)"""
    if not chosen.support:
        return list(passed)
    kept = {item for item, _ in passed}
    return [(item, score) for item, score in ranked if item in kept or item in worded]


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
