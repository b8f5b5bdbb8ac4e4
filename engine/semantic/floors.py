"""The similarity floor of message search: below it, a vector's nearest message is not a match.

Nearest neighbours always exist, so a semantic ranking of anything returns messages; without a floor a
search for something never discussed lists the least unrelated messages as results. A semantic hit must
reach its embedder's floor (cosine; vectors are normalised), looked up in :data:`FLOORS` by embedder family
(the id up to its first ``-``: ``e5-small-q4`` is ``e5``).

Each floor is the highest that cost at most 0.005 semantic hit@10 on either evaluation set (English and
Traditional Chinese; ``bench/README.md``), so the floor drops results of unrelated queries without losing
relevant ones. An embedder without a measured floor (Gemini, an injected one) has none: its rankings are
used whole, as before floors existed.
"""

from __future__ import annotations

FLOORS: dict[str, float] = {"e5": 0.80, "use": 0.25, "hash": 0.10}


def floor_for(embedder_id: str) -> float | None:
    """The similarity floor of an embedder, or None when none was measured for it."""
    return FLOORS.get(embedder_id.split("-", 1)[0])


def above(pairs: list[tuple[int, float]], embedder_id: str) -> list[tuple[int, float]]:
    """The ``(id, cosine)`` pairs that reach the embedder's floor (all of them without one)."""
    floor = floor_for(embedder_id)
    return pairs if floor is None else [(i, s) for i, s in pairs if s >= floor]
