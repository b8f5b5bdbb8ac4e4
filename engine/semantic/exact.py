"""Exact top-k by cosine over an in-memory float32 matrix of unit vectors (``X @ q`` + ``argpartition``).

The query is cast to float32 first: a float64 query would upcast the whole matrix on every call.

``X @ q`` is computed as a stack of small products (:func:`scores`), at most :data:`SMALL_PRODUCT`
elements each, in one numpy call: OpenBLAS computes a product that small on the calling thread, where one
big matrix-vector product wakes its thread pool, and on busy cores (the embedder at work, other programs)
that pool costs more than the product: 200,000 x 512 took 280 ms as one product against 20-30 ms as a
stack, measured on 2 busy cores (15-20 ms either way on idle ones).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engine.embedders import Vectors


def top_k(
    matrix: Vectors, query: Vectors, k: int, among: npt.NDArray[np.intp] | None = None
) -> tuple[npt.NDArray[np.intp], Vectors]:
    """Row indices of the ``k`` most similar rows, best first, and their cosine scores; with ``among``,
    of those rows only (chosen before the top ``k`` is taken)."""
    import numpy as np

    n = matrix.shape[0]
    if n == 0 or k <= 0 or (among is not None and len(among) == 0):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    similarity = scores(matrix, query)
    rows = np.arange(n) if among is None else np.asarray(among, dtype=np.intp)
    if among is not None:
        similarity = similarity[rows]
    if k < len(rows):
        part = np.argpartition(-similarity, k - 1)[:k]
    else:
        part = np.arange(len(rows))
    order = part[np.argsort(-similarity[part], kind="stable")]
    return rows[order], similarity[order]


SMALL_PRODUCT = 8192
"""Elements of one product in :func:`scores` (OpenBLAS threads a matrix-vector product from 9,216)."""


def scores(matrix: Vectors, query: Vectors) -> Vectors:
    """``matrix @ query`` in float32, as products small enough to run on the calling thread."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32).reshape(-1)
    n, dim = matrix.shape
    rows = max(1, SMALL_PRODUCT // max(1, dim))
    whole = (n // rows) * rows
    out = np.empty(n, dtype=np.float32)
    if whole:
        out[:whole] = np.matmul(matrix[:whole].reshape(-1, rows, dim), q).reshape(-1)
    if whole < n:
        out[whole:] = matrix[whole:] @ q
    return out
