"""The floors of meaning search: below them, a vector's nearest message is not a match.

Nearest neighbours always exist, so a semantic ranking of anything returns messages; without a floor a
search for something never discussed lists the least unrelated messages as results. A semantic hit must
pass two floors, looked up by embedder family (the id up to its first ``-``: ``e5-small-q4`` is ``e5``):

- :data:`FLOORS`, on the cosine itself (vectors are normalised);
- :data:`LIFTS`, on its *lift*: the cosine minus the query's cosine with the centroid of the embedder's
  vectors (:mod:`engine.semantic.centroid`), i.e. how far the message stands above the query's nearness
  to the memory as a whole. A cosine alone cannot say "nothing here" for e5, which rates every pair of
  texts 0.7-0.9: a nonsense string's nearest message scores as high as a paraphrase's answer, but it is
  about as near to every message, so its lift is small.

Both were measured on the dev sets (their questions as the paraphrases, nonsense strings and off-topic
questions as the noise; ``python -m bench.nomatch``, figures in ``bench/README.md``). An embedder without
measured floors (Gemini, an injected one) has none: its rankings are used whole.
"""

from __future__ import annotations

FLOORS: dict[str, float] = {"e5": 0.80, "use": 0.25, "hash": 0.10}
LIFTS: dict[str, float] = {"e5": 0.045}


def family(embedder_id: str) -> str:
    return embedder_id.split("-", 1)[0]


def floor_for(embedder_id: str) -> float | None:
    """The cosine floor of an embedder, or None when none was measured for it."""
    return FLOORS.get(family(embedder_id))


def lift_for(embedder_id: str) -> float | None:
    """The lift floor of an embedder, or None when none was measured for it."""
    return LIFTS.get(family(embedder_id))


def above(
    pairs: list[tuple[int, float]], embedder_id: str, base: float | None = None
) -> list[tuple[int, float]]:
    """The ``(id, cosine)`` pairs that pass the embedder's floors (all of them without any); ``base`` is
    the query's cosine with the centroid of the vectors (None: the lift is not checked)."""
    floor = floor_for(embedder_id)
    lift = lift_for(embedder_id)
    low = floor if floor is not None else float("-inf")
    if base is not None and lift is not None:
        return [(i, s) for i, s in pairs if s >= low and s - base >= lift]
    return [(i, s) for i, s in pairs if s >= low]
