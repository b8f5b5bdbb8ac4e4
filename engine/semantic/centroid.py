"""The centroid of an embedder's vectors, from an even sample of them: what a query's similarity to the
memory as a whole is measured against (:mod:`engine.semantic.floors`).

A query's cosine with the centroid is its mean cosine with the memory's messages (times the centroid's
length, the same for every query): how near it is to everything. A sample of :data:`SAMPLE` vectors,
picked by row ids spread evenly over the table, gives it within about a thousandth; it is taken again when
the table has grown by :data:`REFRESH_SHARE` since.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from engine.storage.sql import Connection, in_chunks

if TYPE_CHECKING:
    from engine.embedders import Vectors

SAMPLE = 2000
"""Vectors read for a centroid (point reads by row id: a few milliseconds at any table size)."""
REFRESH_SHARE = 0.1
"""A centroid is taken again when the table's highest row id grew by this share."""


def sample(conn: Connection, embedder_id: str, dim: int) -> Vectors | None:
    """The mean of up to :data:`SAMPLE` of the embedder's vectors, spread over the table; None when it has
    none."""
    import numpy as np

    top = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM vectors").scalar_one())
    if top <= 0:
        return None
    step = max(1, top // SAMPLE)
    picked = list(range(1, top + 1, step))
    blobs: list[bytes] = []
    size = dim * 4
    for chunk, marks in in_chunks(picked):
        got = conn.execute(
            f"SELECT vector FROM vectors WHERE id IN ({marks}) AND embedder = ?", (*chunk, embedder_id)
        ).all()
        blobs += [bytes(r[0]) for r in got if len(r[0]) == size]
    if not blobs:
        got = conn.execute(
            "SELECT vector FROM vectors WHERE embedder = ? LIMIT ?", (embedder_id, SAMPLE)
        ).all()
        blobs = [bytes(r[0]) for r in got if len(r[0]) == size]
    if not blobs:
        return None
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
    mean: Vectors = matrix.mean(axis=0)
    return mean


class Centroids:
    """Each embedder's centroid, kept while the table has not grown by :data:`REFRESH_SHARE`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[str, tuple[int, Vectors | None]] = {}

    def get(self, conn: Connection, embedder_id: str, dim: int) -> Vectors | None:
        top = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM vectors").scalar_one())
        with self._lock:
            kept = self._kept.get(embedder_id)
        if kept is not None and kept[1] is not None and top <= kept[0] * (1 + REFRESH_SHARE):
            return kept[1]
        value = sample(conn, embedder_id, dim)
        with self._lock:
            self._kept[embedder_id] = (top, value)
        return value
