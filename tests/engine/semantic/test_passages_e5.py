"""Long replies embedded whole with the real e5 model: a question asked in other words finds the reply whose
answer lies past its first 2,000 characters, and the hit names the passage holding it.

The replies and questions are ``bench.longreplies``' (the figures over all of them: ``python -m
bench.passages needles``). The model is built once for the module (a few seconds); without the weights
the test skips (CI installs them).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.longreplies import NEEDLES, with_needle
from engine import Memory, Message
from engine.embedders import e5weights
from engine.embedders.e5onnx import OnnxE5Embedder
from engine.errors import VectorIndexError
from engine.semantic import passages, rows

NS = 1_000_000_000
T0 = 1_700_000_000 * NS
FOUND = (5, 7)
"""The needles whose reply e5 ranks first by its best passage, that passage holding the fact (the others
are ranked 2nd to 10th: see bench/README.md)."""


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> OnnxE5Embedder:
    try:
        model = OnnxE5Embedder(cache_folder=tmp_path_factory.mktemp("models"), weights=e5weights.locate())
        model.load()
    except VectorIndexError as exc:
        pytest.skip(str(exc))
    return model


def test_a_paraphrased_question_finds_the_passage_past_the_first_2000_characters(
    embedder: OnnxE5Embedder, tmp_path: Path
) -> None:
    rng = random.Random(26)
    texts = [with_needle(rng, needle, rng.choice((4_000, 8_000, 15_000))) for needle in NEEDLES]
    with Memory.open(tmp_path / "home", embedder=embedder) as mem:
        ids = []
        for n, text in enumerate(texts):
            stored = mem.append(
                f"chat-{n}",
                [
                    Message("user", "Can you help me with this?", T0 + n * 10 * NS),
                    Message("assistant", text, T0 + (n * 10 + 1) * NS),
                ],
            )
            ids.append(stored[1].id or 0)
        assert mem.wait_idle(timeout=600)
        with mem._store.read() as conn:
            counted = int(conn.execute("SELECT COUNT(*) FROM passages").scalar_one())
        assert counted >= 2 * len(texts)  # every reply is several passages
        for n in FOUND:
            needle, text = NEEDLES[n], texts[n]
            at = text.index(needle.fact)
            assert at > rows.MAX_CHARS and needle.fact not in rows.document_text(Message("assistant", text))
            ranked = mem.semantic.search_vectors(needle.question, session=None, scope="all", k=len(texts))
            assert ranked[0][0] == ids[n], (n, [ids.index(i) for i, _ in ranked])
            start, end = mem.semantic.best_passages(needle.question, [ids[n]])[ids[n]]
            assert start <= at < end
    for part in passages.split(texts[0], "", "Can you help me with this?", passages.window_for(embedder))[0]:
        assert len(embedder.token_ids(part.text)) < 512  # each passage fits the model's window: not cut
