"""What a search of the viewer returns: the engine's hits, and the messages around each (its context).

Everything here runs on the store worker. A search asks for up to :data:`MAX_RESULTS` hits but reads
the context of one page only (:data:`PAGE`); :func:`with_context` reads the next page when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Coverage, Hit, Memory, Message
from engine.search import MAX_LIMIT


@dataclass(frozen=True)
class Result:
    """A hit with its context (oldest first, the hit included)."""

    hit: Hit
    context: list[Message]


PAGE = 50
"""Results shown at a time; "More results" shows the next page."""
MAX_RESULTS = MAX_LIMIT
"""Hits asked of the engine per search (its largest limit): the count says "200+" beyond it."""


@dataclass(frozen=True)
class Query:
    """A search as typed: its text (as the engine cleans and parses it), how to match, where, when."""

    text: str
    match: str
    session: str | None
    time_range: str | None
    limit: int = MAX_RESULTS

    @classmethod
    def typed(
        cls, text: str, match: str, session: str | None = None, time_range: str | None = None
    ) -> Query | None:
        """The search for a box's ``text`` (white space around it dropped: it changes no result); None
        when there is nothing to search. The engine cleans and parses the rest."""
        text = text.strip()
        return cls(text, match, session, time_range) if text else None


@dataclass(frozen=True)
class Found:
    """A search's answer: every hit (up to the query's limit), the first page with its context, and how
    much of the memory its meaning search covered (None for a keyword search)."""

    query: Query
    hits: list[Hit]
    results: list[Result]
    coverage: Coverage | None = None

    @property
    def partial(self) -> bool:
        """True when meaning search ranked only part of the messages (the rest wait to be embedded)."""
        return self.coverage is not None and not self.coverage.complete

    @property
    def capped(self) -> bool:
        """True when the engine may have more hits than it returned."""
        return len(self.hits) >= self.query.limit


def with_context(mem: Memory, hits: list[Hit]) -> list[Result]:
    """Each hit with its 2-before/1-after context (runs on the store worker)."""
    results = []
    for hit in hits:
        m = hit.message
        context = mem.around(m.session, m.id, before=2, after=1) if m.session and m.id is not None else [m]
        results.append(Result(hit, context or [m]))
    return results


def run_search(mem: Memory, query: Query, page: int = PAGE) -> Found:
    """Search, then read the context of the first ``page`` hits (runs on the store worker)."""
    found = mem.search_with_coverage(
        query.text,
        session=query.session,
        match=query.match,
        scope="all",
        time_range=query.time_range,
        limit=query.limit,
    )
    hits = list(found.hits)
    return Found(query, hits, with_context(mem, hits[:page]), found.coverage)
