"""Sentence embedders behind one protocol.

Every embedder has an ``id`` (stored with each vector, so vectors of different embedders never mix), a
``dim``, and two methods returning float32, L2-normalised arrays: ``encode_documents`` for what is stored
and ``encode_query`` for what is searched (some models prefix the two differently).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors: TypeAlias = npt.NDArray[np.float32]


def __getattr__(name: str) -> Any:
    """``Vectors`` at run time (annotations name it without importing numpy; a value needs numpy)."""
    if name == "Vectors":
        import numpy as np
        import numpy.typing as npt

        return npt.NDArray[np.float32]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@runtime_checkable
class Embedder(Protocol):
    """What the vector tiers need from an embedding model."""

    id: str
    dim: int

    def encode_documents(self, texts: list[str]) -> Vectors:
        """Embed texts to store: shape ``(len(texts), dim)``, float32, rows L2-normalised."""
        ...

    def encode_query(self, text: str) -> Vectors:
        """Embed one search query: shape ``(dim,)``, float32, L2-normalised."""
        ...


def normalise(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    import numpy as np

    values: Vectors = np.asarray(matrix, dtype=np.float32)
    if values.ndim == 1:
        norm = np.float32(np.linalg.norm(values))
        return values / norm if norm > 0 else values
    norms = np.linalg.norm(values, axis=1, keepdims=True).astype(np.float32)
    norms[norms == 0] = 1.0
    result: Vectors = values / norms
    return result
