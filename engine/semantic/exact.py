"""Exact top-k by cosine over an in-memory float32 matrix of unit vectors (``X @ q`` + ``argpartition``).

The query is cast to float32 first: a float64 query would upcast the whole matrix on every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embedders import Vectors


def top_k(matrix: Vectors, query: Vectors, k: int) -> tuple[npt.NDArray[np.intp], Vectors]:
    """Row indices of the ``k`` most similar rows, best first, and their cosine scores."""
    import numpy as np

    n = matrix.shape[0]
    if n == 0 or k <= 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    scores: Vectors = matrix @ np.asarray(query, dtype=np.float32)
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(n)
    order = part[np.argsort(-scores[part], kind="stable")]
    return order, scores[order]
