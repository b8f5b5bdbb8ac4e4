"""Plain keyword search ranks by BM25 with less length normalization than FTS5 (``bm25.PLAIN_B``): a chat
turn that holds more of the query's words is not outranked by a shorter one for being short."""

from __future__ import annotations

import pytest

from engine import Memory, Message
from engine.search import bm25
from tests.engine.conftest import FakeClock

FILLER = " ".join(f"word{n}" for n in range(40))


def _ranked(mem: Memory, query: str) -> list[str]:
    return [h.message.content for h in mem.search(query, match="keyword", limit=10)]


def test_a_longer_turn_holding_more_of_the_query_ranks_first(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = "the pooler again"
    longer = f"we chose the pooler in transaction mode after the outage, {FILLER}"
    elsewhere = "a transaction log"  # the two words are about as rare
    others = [f"nothing about it, note {n}" for n in range(30)]
    memory.append("s1", [Message("user", t, clock.advance(1)) for t in (short, longer, elsewhere, *others)])
    query = "pooler transaction"
    assert _ranked(memory, query)[0] == longer
    with monkeypatch.context() as patch:  # FTS5's length normalization lets the short turns win
        patch.setattr(bm25, "PLAIN_B", bm25.B)
        ranked = _ranked(memory, query)
        assert ranked.index(short) < ranked.index(longer)
    assert 0 < bm25.PLAIN_B < bm25.B
