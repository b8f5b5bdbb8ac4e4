"""The ``gemini`` embedder (opt-in): ``gemini-embedding-001`` through google-genai, batched.

Documents are embedded with task type ``RETRIEVAL_DOCUMENT`` and queries with ``RETRIEVAL_QUERY``, at a
reduced output dimensionality (768 by default); vectors are re-normalised, since truncated Gemini vectors
are not unit length. Errors become the engine's Gemini errors (``QuotaExceeded``, ``GeminiUnavailable``...).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from engine.embedders import Vectors, normalise
from engine.errors import GeminiUnavailable
from engine.llm.gemini import translated_errors

log = logging.getLogger("memtray.embedders")

MODEL = "gemini-embedding-001"
BATCH = 100  # the API's limit of texts per batchEmbedContents call


class GeminiEmbedder:
    """Remote embeddings; needs a client from :func:`engine.llm.gemini.make_client`."""

    def __init__(self, client: Any, *, model: str = MODEL, dim: int = 768) -> None:
        self._client = client
        self._model = model
        self.dim = dim
        self.id = f"gemini-{model}-{dim}"

    def _embed(self, texts: list[str], task_type: str) -> Vectors:
        from google.genai import types

        config = types.EmbedContentConfig(task_type=task_type, output_dimensionality=self.dim)
        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            chunk = texts[start : start + BATCH]
            with translated_errors("Gemini embeddings"):
                reply = self._client.models.embed_content(model=self._model, contents=chunk, config=config)
            embeddings = reply.embeddings or []
            if len(embeddings) != len(chunk):
                raise GeminiUnavailable(
                    f"Gemini embeddings: {len(embeddings)} vectors for {len(chunk)} texts"
                )
            rows.extend(list(e.values or []) for e in embeddings)
        return normalise(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim))

    def encode_documents(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._embed(list(texts), "RETRIEVAL_DOCUMENT")

    def encode_query(self, text: str) -> Vectors:
        vector: Vectors = self._embed([text], "RETRIEVAL_QUERY")[0]
        return vector
