"""A calibrated "no matches": meaning search keeps a message only at its embedder's floors (the cosine, and
its lift over the query's nearness to the memory as a whole), so off-topic queries find nothing and
paraphrases still find their answer; MCP results say whether anything matched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message
from engine.embedders.chooser import select
from engine.embedders.hashing import HashEmbedder
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.server import run_tool
from engine.mcpserver.tools import mcp_tools
from engine.semantic import centroid, floors

NS = 1_000_000_000
T0 = 1_700_000_000 * NS
HISTORY = [
    "I repotted the basil and the tomatoes on the balcony this morning.",
    "The tomatoes need more sun; move them to the south window.",
    "My sourdough starter finally doubled overnight after I fed it rye flour.",
    "Bake the loaf at 250 degrees with steam for the first twenty minutes.",
    "We booked the train from Amsterdam to Berlin for the second week of May.",
    "Remember to bring the rain jackets, the forecast says showers all week.",
    "The cat knocked the cup of coffee off the desk again.",
    "I finished reading the novel about the lighthouse keeper's daughter.",
    "Our neighbour lent us a ladder to clean the gutters.",
    "The dentist appointment moved to Thursday at nine.",
]
OFF_TOPIC = ["zzqqxxnotthere", "quantum chromodynamics lattice gauge theory", "我們討論過火星殖民的預算嗎？"]
PARAPHRASES = {
    "how hot should the oven be for bread": HISTORY[3],
    "when is the trip to Germany by rail": HISTORY[4],
    "the feline spilled my drink": HISTORY[6],
}


def test_a_hit_must_pass_both_floors_of_its_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(floors.FLOORS, "e5", 0.80)
    monkeypatch.setitem(floors.LIFTS, "e5", 0.05)
    pairs = [(1, 0.90), (2, 0.86), (3, 0.79)]
    assert floors.above(pairs, "e5-small-q4", base=0.83) == [(1, 0.90)]  # 2 stands only 0.03 above
    assert floors.above(pairs, "e5-small-q4", base=None) == [(1, 0.90), (2, 0.86)]  # cosine floor only
    assert floors.above(pairs, "gemini-embedding", base=0.99) == pairs  # no measured floors: used whole


def test_the_centroid_is_the_mean_of_the_vectors(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "home", embedder=HashEmbedder()) as mem:
        mem.append("s1", [Message("user", text, T0 + n * NS) for n, text in enumerate(HISTORY)])
        assert mem.wait_idle(timeout=60)
        with mem._store.read() as conn:
            got = centroid.sample(conn, "hash-512", 512)
            rows = conn.execute("SELECT vector FROM vectors").all()
            assert centroid.sample(conn, "other-1", 512) is None
        every = np.frombuffer(b"".join(bytes(r[0]) for r in rows), dtype=np.float32).reshape(len(rows), 512)
        assert got is not None and np.allclose(got, every.mean(axis=0), atol=1e-6)


@pytest.mark.slow
def test_e5_finds_nothing_off_topic_and_still_finds_paraphrases(tmp_path: Path) -> None:
    embedder, _ = select("e5")
    with Memory.open(tmp_path / "home", embedder=embedder) as mem:
        mem.append("s1", [Message("user", text, T0 + n * NS) for n, text in enumerate(HISTORY)])
        assert mem.wait_idle(timeout=300)
        for query in OFF_TOPIC:
            assert mem.search(query, match="semantic") == [], query
            assert mem.search(query, match="hybrid") == [], query
        for query, answer in PARAPHRASES.items():
            found = [h.message.content for h in mem.search(query, match="semantic", limit=3)]
            assert answer in found, query
        spec = next(s for s in mcp_tools() if s.name == "search")
        ctx = Context(mem, Catalog(mem))
        result = run_tool(spec, ctx, {"query": OFF_TOPIC[1]}).structured_content
        assert result is not None and result["matched"] is False and result["hits"] == []
        result = run_tool(spec, ctx, {"query": "the feline spilled my drink"}).structured_content
        assert result is not None and result["matched"] is True
        assert result["hits"][0]["kind"] in ("meaning", "both") and result["hits"][0]["score"] > 0


def test_mcp_search_says_when_meaning_search_is_partial(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "home", embedder=HashEmbedder(), background=False) as mem:
        mem.append(
            "s1", [Message("user", text, T0 + n * NS) for n, text in enumerate(HISTORY)]
        )  # not embedded
        spec = next(s for s in mcp_tools() if s.name == "search")
        ctx = Context(mem, Catalog(mem))
        result = run_tool(spec, ctx, {"query": "tomatoes"}).structured_content
        assert result is not None and result["matched"] is True
        assert result["coverage"] == f"meaning search covers 0 of {len(HISTORY)} messages"
        assert all(hit["kind"] == "keyword" for hit in result["hits"]) and "covers 0" in result["summary"]
        keyword = run_tool(spec, ctx, {"query": "tomatoes", "match": "keyword"}).structured_content
        assert keyword is not None and "coverage" not in keyword  # no meaning search, nothing to cover
