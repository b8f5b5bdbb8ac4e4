"""What a search is asked and what it returns: the match kinds, scopes and limit it accepts (checked by
:func:`check_arguments`), and its results (:class:`Hit`, :class:`SearchResult`).

A hit's ``source`` says where it came from: ``recent`` (still in history.json) or ``archive`` (cut out of
history.json by compaction) for keyword search; semantic and hybrid search
(:class:`engine.search.conductor.Search`) add ``semantic`` and ``hybrid``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.clock import TIME_RANGES
from engine.errors import InvalidInput
from engine.messages import Message
from engine.semantic.progress import Coverage

MATCHES = ("keyword", "semantic", "hybrid")
SCOPES = ("recent", "all")
MAX_LIMIT = 200


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        message: the message, with its id and session.
        score: higher is better; comparable only within one result list. Keyword search: BM25 (0 and up);
            semantic search: the cosine similarity of query and message (at the embedder's floor or above);
            hybrid search: the fused score (each list's scores scaled to 0..1 times its weight, summed).
        source: ``recent``, ``archive``, ``semantic`` or ``hybrid``.
        kind: what matched: ``keyword`` (the words), ``meaning`` (the vectors) or ``both`` (hybrid search
            found it both ways).
        passage: for a hit found by meaning in a message embedded as several passages (longer than the
            embedder's window): the ``(start, end)`` characters of its content that matched best; ``None``
            when the whole message is what matched (or only its words did).
    """

    message: Message
    score: float
    source: str
    kind: str = "keyword"
    passage: tuple[int, int] | None = None


@dataclass(frozen=True)
class SearchResult:
    """The hits of one search, and what its meaning search covered.

    Attributes:
        hits: best first; only matches (keyword matches, and vectors at their embedder's similarity floor
            or above), so a search for something never said has none.
        coverage: how many messages of the session searched (or of all) were embedded when semantic or
            hybrid search ranked them; ``None`` for keyword search, or when it was not asked for.
    """

    hits: tuple[Hit, ...]
    coverage: Coverage | None


def check_arguments(match: str, scope: str, time_range: str | None, limit: int) -> None:
    """Raises InvalidInput for an unknown match, scope or time range, or a limit out of 1..200."""
    if match not in MATCHES:
        raise InvalidInput(f"match must be one of {', '.join(MATCHES)}, not {match!r}")
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be recent or all, not {scope!r}")
    if time_range is not None and time_range not in TIME_RANGES:
        raise InvalidInput(f"time range must be one of {', '.join(TIME_RANGES)}, not {time_range!r}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
