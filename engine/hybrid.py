"""Reciprocal-rank fusion of ranked lists (hybrid search).

Each list gives an item ``weight / (k + rank)`` (rank 1 = best); an item's score is the sum over the lists
it appears in. ``k = 60`` is the usual constant; the depths and weights memtray uses were set by
measurement on the evaluation data (``bench/retrieval.py``; figures in ``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import Connection

RRF_K = 60
KEYWORD_DEPTH = 50
SEMANTIC_DEPTH = 50
KEYWORD_WEIGHT = 1.0
SEMANTIC_WEIGHT = 1.0


NEIGHBOUR_WEIGHT = 0.0
"""Share of an item's RRF score also given to the next message of its session (answers follow questions)."""


def fuse(
    rankings: Sequence[tuple[Sequence[int], float]],
    k: int = RRF_K,
    *,
    successor: Mapping[int, int] | None = None,
    neighbour_weight: float = 0.0,
) -> list[tuple[int, float]]:
    """Fuse ``(ids best first, weight)`` rankings; return ``(id, score)`` best first (ties: newer id).

    With ``successor`` (message id -> the next message id of its session), each item also gives
    ``neighbour_weight`` times its share to its successor: a match on a turn lifts the reply to it.
    """
    scores: dict[int, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids, start=1):
            share = weight / (k + rank)
            scores[item] = scores.get(item, 0.0) + share
            if successor and neighbour_weight and item in successor:
                after = successor[item]
                scores[after] = scores.get(after, 0.0) + neighbour_weight * share
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)


def successors(conn: Connection, ids: Sequence[int]) -> dict[int, int]:
    """The next message id in the same session for each of ``ids`` (absent for a session's last)."""
    wanted = sorted(set(ids))
    found: dict[int, int] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = (
            "SELECT m.id, (SELECT n.id FROM messages n WHERE n.session_id = m.session_id AND n.id > m.id "
            f"ORDER BY n.id LIMIT 1) FROM messages m WHERE m.id IN ({marks})"
        )
        for row in conn.exec_driver_sql(sql, tuple(chunk)):
            if row[1] is not None:
                found[int(row[0])] = int(row[1])
    return found
