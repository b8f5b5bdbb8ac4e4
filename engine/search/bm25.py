"""BM25, the one ranking of keyword search: plain (``engine.search.fulltext``) and context (``engine.search.context``).

The formulas are FTS5's ``bm25()``, so a ranking computed here over bounded candidates agrees with one
FTS5 computes over every match: a term in ``df`` of ``N`` rows weighs
``idf = log((N - df + 0.5) / (df + 0.5))`` (at least 1e-6: a term in more than half of the rows counts
almost nothing), and a row scores the sum over the terms it holds of
``idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))``. With columns, ``tf`` is
the sum of the weights of the columns holding the term (each counts once). Lengths are in characters.

Measured on LoCoMo (``bench/retrieval.py``, hash embedder), FTS5's idf ranks plain keyword search as
well as or better than the ``log(1 + ...)`` variant (hit@1/5/10 0.339/0.559/0.648 against
0.336/0.551/0.643).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

K1, B = 1.2, 0.75


def idf(df: float, total: int) -> float:
    """The inverse document frequency of a term in ``df`` of ``total`` rows."""
    return max(math.log((total - min(df, total) + 0.5) / (df + 0.5)), 1e-6)


def score(matches: Iterable[tuple[float, float]], length: float, average: float) -> float:
    """A row's BM25 from ``(idf, tf)`` of each query term it holds, its length and the mean length."""
    factor = K1 * (1 - B + B * length / (average or 1.0))
    return sum((weight * (tf * (K1 + 1) / (tf + factor)) for weight, tf in matches), 0.0)
