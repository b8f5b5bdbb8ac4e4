"""Vectors of error records: what is embedded, where it is stored, the in-memory matrix, the floor.

Each record's problem — ``tool: symptom``, the cause and its own keywords (not the action, which is the
fix and not what a failing tool's error text looks like) — is embedded once per embedder and stored as a
float32 blob with the embedder id, the dimension and a sha256 of the text, so unchanged text is never
embedded twice. Searching loads the current embedder's vectors into one matrix, kept in memory until the
``error_memory_state`` generation (bumped by triggers on every vector change, in any process) moves.

**The similarity floor.** The original returns the nearest records whatever their distance, so it always
returns noise. A hit must reach the embedder's floor (cosine; vectors are normalised), looked up in
:data:`FLOORS` by embedder family (the id up to its first ``-``). The ``hash`` floor, 0.30, was chosen
with ``python -m bench.errors_floor``: 30 records of 12 tools, 60 queries that should find one of them
(error texts and paraphrases) and 30 about problems no record covers. Related queries score median 0.49
(p10 0.26) against their record; unrelated ones score median 0.25 against the best record of any tool
and 0.15 against the best of their own tool. At 0.30, 51/60 related queries pass, and 9/30 unrelated ones
pass against some other tool's record (mostly shared words: "certificate expired" and "SSL certificate
verify failed") but only 1/30 within their own tool, which is what the automatic hint searches. End to
end, with the keyword fallback, 53/60 related queries find their record. 0.25 lets 15/30 unrelated
queries through; 0.35 loses related ones for little gain. Embedders without a measured floor use
:data:`DEFAULT_FLOOR`, which is high: their vectors only return near-duplicates until a floor is measured
for them (``bench/errors_floor.py`` takes the embedder's name).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.embedders import Embedder
from engine.errormemory.records import ERROR_TYPE_PREFIX, ErrorRecord
from engine.storage.sql import Connection

if TYPE_CHECKING:
    import numpy as np

    from engine.embedders import Vectors

log = logging.getLogger("memtray.errormemory")

FLOORS: dict[str, float] = {"hash": 0.30}
"""Cosine similarity a vector hit must reach, by embedder family (measured; see the module docstring)."""
DEFAULT_FLOOR = 0.80
"""For an embedder with no measured floor: high, so that vectors never return noise (keywords still work)."""


def floor_for(embedder_id: str) -> float:
    """The similarity floor of an embedder, by the family part of its id (``hash-512`` → ``hash``)."""
    return FLOORS.get(embedder_id.split("-", 1)[0], DEFAULT_FLOOR)


def document_text(symptom: str, cause: str, keywords: Sequence[str]) -> str:
    """What is embedded for a record: its problem (symptom, cause, own keywords), not its fix or tool."""
    own = " ".join(k for k in keywords if not k.startswith(ERROR_TYPE_PREFIX))
    return "\n".join(part for part in (symptom, cause, own) if part)


def record_text(record: ErrorRecord) -> str:
    return document_text(record.symptom, record.cause, record.keywords)


def text_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def save(conn: Connection, num: int, embedder: Embedder, vector: Vectors, hashed: str) -> None:
    """Store (or replace) the vector of record ``num``."""
    import numpy as np

    blob = np.asarray(vector, dtype=np.float32).reshape(-1).tobytes()
    conn.execute(
        "INSERT INTO error_memory_vectors(num, embedder, dim, text_hash, vector) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(num) DO UPDATE SET embedder = excluded.embedder, "
        "dim = excluded.dim, text_hash = excluded.text_hash, vector = excluded.vector",
        (num, embedder.id, embedder.dim, hashed, blob),
    )


def stored_hash(conn: Connection, num: int, embedder_id: str) -> str | None:
    row = conn.execute(
        "SELECT text_hash FROM error_memory_vectors WHERE num = ? AND embedder = ?",
        (num, embedder_id),
    ).first()
    return None if row is None else str(row[0])


def missing(conn: Connection, embedder_id: str, now: int, limit: int) -> list[int]:
    """Live records with no vector of this embedder."""
    rows = conn.execute(
        "SELECT m.num FROM error_memory m LEFT JOIN error_memory_vectors v ON v.num = m.num "
        "AND v.embedder = ? WHERE v.num IS NULL AND m.expires_at > ? ORDER BY m.num LIMIT ?",
        (embedder_id, now, limit),
    )
    return [int(r[0]) for r in rows]


@dataclass(frozen=True)
class Matrix:
    """One embedder's vectors: row ``i`` is record ``nums[i]`` of tool ``tools[i]``."""

    nums: np.ndarray
    tools: np.ndarray
    vectors: Vectors


class VectorCache:
    """The current embedder's vectors in memory, reloaded when the database's generation moves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[int, str, int] | None = None
        self._matrix: Matrix | None = None

    def matrix(self, conn: Connection, embedder: Embedder) -> Matrix:
        import numpy as np

        gen = int(conn.execute("SELECT gen FROM error_memory_state").scalar() or 0)
        key = (gen, embedder.id, embedder.dim)
        with self._lock:
            if self._key == key and self._matrix is not None:
                return self._matrix
        rows = conn.execute(
            "SELECT v.num, m.tool_name, v.vector FROM error_memory_vectors v "
            "JOIN error_memory m ON m.num = v.num WHERE v.embedder = ? AND v.dim = ? ORDER BY v.num",
            (embedder.id, embedder.dim),
        ).all()
        if rows:
            vectors = np.frombuffer(b"".join(bytes(r[2]) for r in rows), dtype=np.float32)
            vectors = vectors.reshape(len(rows), embedder.dim)
        else:
            vectors = np.zeros((0, embedder.dim), dtype=np.float32)
        matrix = Matrix(
            nums=np.array([int(r[0]) for r in rows], dtype=np.int64),
            tools=np.array([str(r[1]) for r in rows], dtype=object),
            vectors=vectors,
        )
        with self._lock:
            self._key, self._matrix = key, matrix
        log.debug("loaded %d error-memory vectors of %s", len(rows), embedder.id)
        return matrix


def nearest(matrix: Matrix, query: Vectors, floor: float, tool_name: str | None) -> list[tuple[int, float]]:
    """``(num, similarity)`` of every record at or above the floor, best first."""
    import numpy as np

    if not len(matrix.nums):
        return []
    # einsum, not BLAS's matvec: OpenBLAS threads spin against each other on a busy 2-core laptop
    # (measured 9 ms vs 1 ms for 3,000 x 512 under load).
    sims = np.einsum("ij,j->i", matrix.vectors, np.asarray(query, dtype=np.float32).reshape(-1))
    keep = sims >= floor
    if tool_name is not None:
        keep &= matrix.tools == tool_name
    index = np.flatnonzero(keep)
    order = index[np.argsort(-sims[index], kind="stable")]
    return [(int(matrix.nums[i]), float(sims[i])) for i in order]
