"""Score fusion of ranked lists (hybrid search).

Hybrid search fuses three rankings: keyword search over each message read between its neighbours
(``engine.search.context``: the context index for words, the neighbours' plain scores for CJK text), the
semantic ranking (only vectors at the embedder's similarity floor), and plain keyword search (each message
alone). Each list contributes its best :data:`DEPTH` items, and holds only matches, so the fused list
does too.

When the query names the sender of a candidate ("what did Caroline say about ..."), that candidate gets
:data:`SENDER_BOOST` on top: people ask about what someone said, and on the evaluation data this lifts
hit@1 by seven points. Names match whole words, ignoring case; a name in CJK script matches anywhere
(:func:`engine.search.query.named_in`). When the query names a calendar date ("what did Maria share on
16 June, 2023?", :mod:`engine.search.dates`), a candidate sent on that date gets :data:`DATE_BOOST`: the
words of such a question rarely say the day, the message's time does.

Each list's scores are scaled to [:data:`MEMBER_SHARE`, 1] (min-max within the list; a list of equal
scores counts 1 for every item) and multiplied by the list's weight; an item's score is the sum over the
lists it appears in. On the evaluation data this fusion of scores beats reciprocal-rank fusion at every
cut-off, most at hit@1: a keyword match far ahead of the rest keeps its lead, which rank fusion throws
away. The weights depend on the query's script (:func:`weights`): on the Chinese evaluation set the vectors
deserve twice the weight they get for English. The depth and weights were set by measurement
(``bench/retrieval.py --sweep``; figures in ``bench/README.md``).

Min-max scaling gives a keyword list's best item 1 however poorly it matches, so a question asked in
English about a Dutch conversation let a weak match of its common words beat the answer only the vectors
found. So each match of the context ranking counts by :func:`match_confidence`: its BM25 per query term
against :attr:`Weights.term_score` (a match of every term counts fully, one of a single common word
little, however well another message matched), and the plain ranking by the best of them
(:func:`keyword_confidence`). Per match, not per list: "what did we decide about the postgres connection
pooler?" matched three messages of the answer's conversation well and one of another conversation by
"postgres" alone, which, counted as fully as the list's best, ranked above the answer only the vectors
found. For CJK queries, whose answers e5 often lifts less above the memory as a whole than
the lift floor asks, :func:`supported` lets the cosine of a keyword match count below the similarity
floors (the floors still keep meaning-only matches out). For other queries a message's cosine gains a
share of its better neighbour's (:func:`neighbour_lifted`), as the context index reads a message's words
with its neighbours'.

A question turn holds the query's words and the turn after it, which answers, often only its meaning (and
e5 embeds each message with the turn before it, so the answer also holds the question's meaning): the
keyword lists then rank the question first and the answer below it. :func:`handed_on` gives the turn after
a question (or the assistant's reply after a user's prompt, for queries without CJK text) the question's
keyword score when its cosine is higher, so that the vectors decide between the two. All were set on the
English, Chinese and real-history sets (``bench/retrieval.py --dump`` writes every question's rankings to
tune on; ``bench/fusion_tune.py`` replays this fusion on them). :func:`combine` is the one place the steps
are put together, for the engine and that bench alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from typing import Protocol

from engine.search.query import Query

DEPTH = 50

COSINE_SPAN = 0.01
"""The least span of the vectors' list in scaling (:func:`normalized`): a short list of cosines within 0.01
of each other (about equally near, e5 rates every pair of texts 0.7-0.9) is not stretched over the whole
scale, where its last item would count :data:`MEMBER_SHARE` only (measured: ``bench/README.md``)."""


@dataclass(frozen=True)
class Weights:
    """The weight of each ranked list in the fusion.

    Attributes:
        context: keyword search over each message between its neighbours.
        semantic: the vectors' ranking (of the embedders that retrieve well; see :func:`weights`).
        plain: plain keyword search, each message alone.
        term_score: a context match's BM25 per query term at which it counts fully (:func:`match_confidence`;
            the plain list counts by the best match, :func:`keyword_confidence`; 0: always fully).
        support: whether the vectors' ranking also counts, below the similarity floors, for messages the
            keyword rankings found (:func:`supported`).
        neighbours: the share of the distance to its better same-session neighbour's cosine that a
            message's cosine gains (:func:`neighbour_lifted`; 0: none).
        asked: the share of a question's keyword scores that the next message of its session inherits
            when that message is nearer the query in meaning (:func:`handed_on`; 0: none).
        prompted: the share of a user turn's keyword scores that the assistant's reply right after it
            inherits when the reply is nearer the query in meaning (:func:`handed_on`; 0: none).
        span: the least span of the vectors' list in scaling (:func:`normalized`; 0: min-max).
        dated: added to the fused score of a message sent on a date the query names
            (:mod:`engine.search.dates`; 0: none).
        named: added to the fused score of a message whose sender the query names (0: none).
    """

    context: float
    semantic: float
    plain: float
    term_score: float = 0.0
    support: bool = False
    neighbours: float = 0.0
    asked: float = 0.0
    prompted: float = 0.0
    span: float = 0.0
    dated: float = 0.0
    named: float = 0.0

    @property
    def hands_on(self) -> bool:
        """Whether a keyword score passes to the turn that answers it (:func:`handed_on`)."""
        return self.asked > 0 or self.prompted > 0


SENDER_BOOST = 0.3
"""Added to a candidate whose sender the query names (:attr:`Weights.named`; the fused scores run from 0 to
about 1.5). Chosen again with :data:`DATE_BOOST` on the English set (0.2 before: 0.3 chosen on both halves
of two splits; the other sets name no senders)."""
DATE_BOOST = 0.5
"""Added to a message sent on a date the query names (:attr:`Weights.dated`; chosen on the English set:
0.3-1.0 alike, 0.5 on both halves of a split; the fused scores run from 0 to about 1.5)."""

WORDS = Weights(
    context=1.0,
    semantic=0.5,
    plain=0.1,
    term_score=4.5,
    neighbours=0.5,
    asked=1.0,
    prompted=0.95,
    span=COSINE_SPAN,
    dated=DATE_BOOST,
    named=SENDER_BOOST,
)
"""Queries without CJK text (set on the English evaluation set and the real-history set): plain keyword
search breaks ties; a question's or a user prompt's keyword score passes to the nearer answer after it."""
CJK = Weights(
    context=1.0,
    semantic=1.0,
    plain=0.1,
    term_score=6.0,
    support=True,
    asked=1.0,
    span=COSINE_SPAN,
    dated=DATE_BOOST,
    named=SENDER_BOOST,
)
"""Queries with CJK text (set on the Traditional-Chinese evaluation set): a question's keyword score passes
to the nearer answer after it (a user prompt's does not: on that set it lowers hit@1 by 0.009). The date
boost is the English set's (the Chinese set names no dates)."""
WEAK_SEMANTIC_SCALE = 0.6
"""The semantic weight is scaled by this for the embedders of :data:`WEAK_EMBEDDERS`."""
WEAK_EMBEDDERS = ("use-", "hash-")
"""Embedders that retrieve clearly worse than keywords on the evaluation: their ranking counts less."""

Scored = Sequence[tuple[int, float]]


def weights(query: Query, embedder_id: str | None) -> Weights:
    """The list weights for ``query`` (by its script) with the vectors of ``embedder_id`` (None: no
    vectors, their weight is 0)."""
    chosen = CJK if query.has_cjk else WORDS
    if embedder_id is None:
        return replace(chosen, semantic=0.0, term_score=0.0, asked=0.0, prompted=0.0)
    if embedder_id.startswith(WEAK_EMBEDDERS):  # the vectors never lead, nor count below their floor
        return replace(
            chosen,
            semantic=chosen.semantic * WEAK_SEMANTIC_SCALE,
            term_score=0.0,
            support=False,
            neighbours=0.0,
            asked=0.0,
            prompted=0.0,
            span=0.0,
        )
    return chosen


def match_confidence(query: Query, context: Scored, chosen: Weights) -> dict[int, float]:
    """How fully each match of the context ranking counts (0..1): its BM25 per query term, as a share of
    ``chosen.term_score`` (1 for every match when that is 0).

    The lists are min-max scaled, so their best item scores 1 however poorly it matches; this share is
    what says "the words found nothing much": a question asked in English about a Dutch conversation, or
    in other words than were used, matches a few common words weakly, and the vectors' ranking then leads.
    Per term, so a long question is not taken for a confident one (BM25 adds up over the terms)."""
    if chosen.term_score <= 0:
        return {item: 1.0 for item, _ in context}
    full = chosen.term_score * max(1, len(query.terms))
    return {item: min(1.0, max(0.0, score) / full) for item, score in context}


def keyword_confidence(matches: Mapping[int, float]) -> float:
    """How fully the plain keyword ranking counts (0..1): the best of the context ranking's ``matches``
    (:func:`match_confidence`; 1 when there are none)."""
    return max(matches.values(), default=1.0)


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


@dataclass(frozen=True)
class Turn:
    """What :func:`handed_on` reads of a message: its session, its role and whether it asks a question."""

    session: str
    role: str
    asks: bool


def handed_on(
    items: Scored, cosines: Mapping[int, float], turns: Mapping[int, Turn], chosen: Weights
) -> list[tuple[int, float]]:
    """A keyword ranking in which the turn that answers a matched one inherits a share of its score.

    The message right after item ``i`` (id ``i + 1``, same session) gets ``chosen.asked`` of ``i``'s score
    when ``i`` asks a question, ``chosen.prompted`` when ``i`` is a user turn and it the assistant's reply
    (the larger share when both hold), but only when its cosine with the query (``cosines``, the nearest
    messages) is higher than ``i``'s; it keeps its own score when that is higher. The question holds the
    query's words, the answer often only its meaning: the vectors (which embed a message with the turn before
    it) then decide between the two. Best first (ties: newer id)."""
    if not chosen.hands_on or not items:
        return list(items)
    scores = dict(items)
    for item, score in items:
        turn, reply = turns.get(item), turns.get(item + 1)
        if turn is None or reply is None or turn.session != reply.session:
            continue
        if item not in cosines or item + 1 not in cosines or cosines[item + 1] <= cosines[item]:
            continue
        share = max(
            chosen.asked if turn.asks else 0.0,
            chosen.prompted if turn.role == "user" and reply.role == "assistant" else 0.0,
        )
        if share * score > scores.get(item + 1, 0.0):
            scores[item + 1] = share * score
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)


QUESTION_MARKS = ("?", "\uff1f")
"""A message holding one of these asks something (ASCII and full-width question marks)."""


def asks(text: str) -> bool:
    """Whether ``text`` asks a question (holds a question mark, ASCII or full-width)."""
    return any(mark in text for mark in QUESTION_MARKS)


MEMBER_SHARE = 0.01
"""What the worst item of a list still counts (of the list's weight): every item of a list is a match, so
none scores 0 (the ranking is that of plain min-max scaling, within 0.002 hit@k on the evaluation sets)."""


def normalized(items: Scored, min_span: float = 0.0) -> list[tuple[int, float]]:
    """``(id, score)`` scaled so the best is 1 and the worst :data:`MEMBER_SHARE` (all 1 when the scores
    are equal); with ``min_span``, scaled as if the worst were at least that far below the best."""
    if not items:
        return []
    high = max(score for _, score in items)
    low = min(min(score for _, score in items), high - min_span)
    span = high - low
    if span <= 1e-12:
        return [(item, 1.0) for item, _ in items]
    return [(item, MEMBER_SHARE + (1 - MEMBER_SHARE) * (score - low) / span) for item, score in items]


def fuse(
    rankings: Sequence[tuple[Scored, float]],
    min_spans: Sequence[float] = (),
    shares: Sequence[Mapping[int, float] | None] = (),
) -> list[tuple[int, float]]:
    """Fuse ``(list of (id, score), weight)`` rankings, each scaled by :func:`normalized` with its
    ``min_spans`` entry (none: 0) and each item's value times its ``shares`` entry (none: 1); return
    ``(id, score)`` best first (ties: newer id)."""
    scores: dict[int, float] = {}
    for n, (items, weight) in enumerate(rankings):
        if weight <= 0:
            continue
        share = shares[n] if n < len(shares) else None
        for item, value in normalized(items, min_spans[n] if n < len(min_spans) else 0.0):
            counted = value if share is None else value * share.get(item, 1.0)
            scores[item] = scores.get(item, 0.0) + weight * counted
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)


def named_among(senders: Mapping[int, str], query: Query) -> set[int]:
    """The ids of ``senders`` (id -> sender) whose sender ``query`` names."""
    named = {sender: query.names(sender) for sender in set(senders.values()) if sender}
    return {item for item, sender in senders.items() if named.get(sender, False)}


def boosted(fused: Sequence[tuple[int, float]], chosen: Set[int], boost: float) -> list[tuple[int, float]]:
    """``fused`` with ``boost`` added to the scores of the ``chosen`` ids; best first (ties: newer id)."""
    if not chosen or not boost:
        return list(fused)
    raised = [(item, score + boost if item in chosen else score) for item, score in fused]
    return sorted(raised, key=lambda pair: (pair[1], pair[0]), reverse=True)


class Around(Protocol):
    """What :func:`combine` reads of the messages it ranks: the engine reads the archive
    (:class:`engine.search.conductor.Search`), ``bench.fusion_tune`` a dump of it."""

    def sessions(self, ids: Set[int]) -> Mapping[int, str]:
        """The session of each of ``ids`` (those not found are left out)."""
        ...

    def turns(self, ids: Set[int]) -> Mapping[int, Turn]:
        """The :class:`Turn` of each of ``ids`` (those not found are left out)."""
        ...

    def named(self, ids: Sequence[int], query: Query) -> Set[int]:
        """Those of ``ids`` whose sender ``query`` names (:meth:`engine.search.query.Query.names`)."""
        ...

    def sent(self, ids: Sequence[int]) -> Mapping[int, int]:
        """When each of ``ids`` was sent (Unix ns; those not found are left out)."""
        ...


@dataclass(frozen=True)
class Combined:
    """What :func:`combine` gives: the fused ranking, best first, and what each message was found by.

    Attributes:
        ranking: ``(id, score)``, best first.
        worded: the ids the keyword rankings matched (before any score was handed on).
        meant: the ids of the vectors' list at the similarity floors (none when the vectors have no weight).
    """

    ranking: list[tuple[int, float]]
    worded: frozenset[int] = field(default_factory=frozenset)
    meant: frozenset[int] = field(default_factory=frozenset)


def combine(
    query: Query,
    embedder_id: str | None,
    *,
    context: Scored,
    plain: Scored,
    ranked: Scored,
    passed: Scored,
    depth: int,
    around: Around,
) -> Combined:
    """Hybrid search's fusion of one query's rankings, each cut to ``depth``: the keyword rankings
    (``context``, ``plain``), the nearest vectors without floors (``ranked``, deeper than ``depth`` when the
    neighbours' cosines or the hand-on read them) and those at the similarity floors (``passed``), with the
    weights of :func:`weights` for ``query`` and ``embedder_id`` (None: no vectors); the named senders
    preferred (:attr:`Weights.named`) and the messages sent on a named date (:attr:`Weights.dated`). The one place the steps are put together: the engine and the
    tuning bench both call it."""
    chosen = weights(query, embedder_id)
    context, plain = list(context[:depth]), list(plain[:depth])
    if chosen.neighbours > 0 and passed:
        cosines = dict(ranked)
        sessions = around.sessions({i + d for i, _ in passed for d in (-1, 0, 1)} & cosines.keys())
        passed = neighbour_lifted(passed, cosines, sessions, chosen.neighbours)
    worded = {i for i, _ in context} | {i for i, _ in plain}
    if chosen.hands_on and ranked:
        cosines = dict(ranked)
        turns = around.turns({i + d for i in worded for d in (0, 1)} & cosines.keys())
        context = handed_on(context, cosines, turns, chosen)[:depth]
        plain = handed_on(plain, cosines, turns, chosen)[:depth]
    ranked, passed = ranked[:depth], passed[:depth]
    matches = match_confidence(query, context, chosen)
    share = keyword_confidence(matches)
    fused = fuse(
        [
            (context, chosen.context),
            (
                supported(ranked, passed, {i for i, _ in context} | {i for i, _ in plain}, chosen),
                chosen.semantic,
            ),
            (plain, (chosen.plain if context else chosen.context) * share),
        ],
        (0.0, chosen.span),
        (matches, None, None),
    )
    if fused:
        fused = boosted(fused, around.named([i for i, _ in fused], query), chosen.named)
    if fused and query.dates and chosen.dated > 0:
        sent = around.sent([i for i, _ in fused])
        on_date = {i for i, at in sent.items() if any(d.holds(at) for d in query.dates)}
        fused = boosted(fused, on_date, chosen.dated)
    meant = frozenset(i for i, _ in passed) if chosen.semantic > 0 else frozenset()
    return Combined(fused, frozenset(worded), meant)
