"""BM25, the one ranking of keyword search: plain (``engine.search.fulltext``) and context (``engine.search.context``).

The formulas are FTS5's ``bm25()``, so a ranking computed here over bounded candidates agrees with one
FTS5 computes over every match: a term in ``df`` of ``N`` rows weighs
``idf = log((N - df + 0.5) / (df + 0.5))`` (at least 1e-6: a term in more than half of the rows counts
almost nothing), and a row scores the sum over the terms it holds of
``idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))``. With columns, ``tf`` is
the sum of the weights of the columns holding the term (each counts once). Lengths are in characters.

Measured on LoCoMo (``bench/retrieval.py``, hash embedder), FTS5's idf ranks plain keyword search as
well as or better than the ``log(1 + ...)`` variant (hit@1/5/10 0.339/0.559/0.648 against
0.336/0.551/0.643). Plain keyword search counts a message's length less than FTS5 does (:data:`PLAIN_B`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

K1, B = 1.2, 0.75
"""FTS5's constants (the context index scores a few rows in Python with them, as FTS5's ``bm25()`` would)."""
PLAIN_B = 0.2
"""``b`` of plain keyword search, which ranks each message alone and only ever here: short chat turns gain
less from being short. Measured (``bench/README.md``; 0.1-0.4 alike): keyword hit@1 / hit@10 0.339 / 0.648 →
0.370 / 0.652 on the English evaluation set, 0.535 / 0.780 → 0.542 / 0.783 on the Chinese one, against 0.75."""


def idf(df: float, total: int) -> float:
    """The inverse document frequency of a term in ``df`` of ``total`` rows."""
    return max(math.log((total - min(df, total) + 0.5) / (df + 0.5)), 1e-6)


def score(matches: Iterable[tuple[float, float]], length: float, average: float, b: float = B) -> float:
    """A row's BM25 from ``(idf, tf)`` of each query term it holds, its length and the mean length
    (``b``: how much the length counts, FTS5's :data:`B` unless said)."""
    factor = K1 * (1 - b + b * length / (average or 1.0))
    return sum((weight * (tf * (K1 + 1) / (tf + factor)) for weight, tf in matches), 0.0)
