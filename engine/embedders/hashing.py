"""The ``hash`` embedder: hashed character n-grams, numpy only, deterministic.

Lexical only (no meaning): it finds texts that share words or, for CJK, characters. It is the embedder of
tests that do not need semantics, and the last fallback when no model loads.

Features: the text is lower-cased and split into CJK runs and words; a CJK run gives its character 1-, 2-
and 3-grams; a word gives itself and the 3-grams of `` word ``. Each feature is hashed (crc32) into one of
``dim`` buckets with a sign from another bit; counts are scaled by ``sign(x)·log1p(|x|)`` and normalised.
"""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING

from engine.cjk import RUN as _CJK_RUN
from engine.embedders import normalise

if TYPE_CHECKING:
    import numpy as np

    from engine.embedders import Vectors

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _features(text: str) -> list[str]:
    text = text.lower()
    features: list[str] = []
    for run in _CJK_RUN.findall(text):
        for n in (1, 2, 3):
            features.extend(run[i : i + n] for i in range(len(run) - n + 1))
    for word in _WORD.findall(_CJK_RUN.sub(" ", text)):
        features.append("w:" + word)
        padded = f" {word} "
        features.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return features


class HashEmbedder:
    """Deterministic hashed n-gram vectors."""

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.id = f"hash-{dim}"

    def _one(self, text: str) -> np.ndarray:
        import numpy as np

        vector = np.zeros(self.dim, dtype=np.float32)
        for feature in _features(text):
            h = zlib.crc32(feature.encode("utf-8"))
            vector[h % self.dim] += 1.0 if h & 0x80000000 else -1.0
        return np.sign(vector) * np.log1p(np.abs(vector))

    def encode_documents(self, texts: list[str]) -> Vectors:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(np.stack([self._one(t) for t in texts]))

    def encode_query(self, text: str) -> Vectors:
        return normalise(self._one(text))
