"""``bench.fusion_tune`` replays hybrid search's fusion on dumped rankings with the engine's own combination
step (``fusion.combine``): the replay ranks as the engine does, so constants tuned on it are the engine's."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import numpy as np

from bench import fusion_tune
from bench.retrieval import Case, dump_rankings
from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.search import fusion

NS = 1_000_000_000


class FullWeights:
    """The hash embedder's vectors under an id of its own, so that the fusion gives them the weights of an
    embedder that retrieves well (neighbours' cosines, hand-on, keyword confidence, CJK support)."""

    id = "replay-test"

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.dim = self.inner.dim

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode_documents(texts)

    def encode_query(self, text: str) -> np.ndarray:
        return self.inner.encode_query(text)


TOPICS = ("rent", "garden", "bike", "budget", "recipe", "房租", "花園")
QUERIES = (
    "what did Ann say about the rent?",
    "garden tomatoes on 3 June, 2023",
    "budget meeting in July",
    "Bob bike repair",
    "房租漲了多少",
    "花園 2023年6月3日",
    "recipe",
)


def test_the_replay_of_a_dump_ranks_as_hybrid_search(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "home", embedder=FullWeights()) as mem:
        for s in range(3):
            turns = []
            for n in range(24):
                topic = TOPICS[(n + s) % len(TOPICS)]
                asks = "?" if n % 3 == 0 else "."
                sent = int(datetime(2023, 5 + s, 1 + n, 12).timestamp()) * NS
                role, sender = ("user", "Ann") if n % 2 == 0 else ("assistant", "Bob")
                turns.append(Message(role, f"{topic} note {n} of talk {s}{asks}", sent, sender))
            mem.append(f"s{s}", turns)
        assert mem.wait_idle(60)
        compared = 0
        for query in QUERIES:
            engine = [h.message.id for h in mem.search(query, match="hybrid", limit=20)]
            case = json.loads(json.dumps(dump_rankings(mem, Case(None, query, 0, frozenset()))))
            replayed = fusion_tune.fused(case, FullWeights.id)[: len(engine)]
            assert replayed == engine, query
            compared += len(engine)
        assert compared > 5 * len(QUERIES)
    assert fusion.weights(fusion_tune.parse(QUERIES[0]), FullWeights.id).hands_on  # the full weights applied
