"""The ``chat_history`` tool: the original's semantic and keyword modes, memtray's hybrid and scope=all."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, Message
from engine.clock import format_rfc3339
from engine.embedders import Vectors
from engine.embedders.hashing import HashEmbedder
from engine.errors import VectorIndexError
from engine.tools import chat_history
from tests.engine.conftest import FakeClock

NS = 1_000_000_000
T0 = 1_700_000_000 * NS

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
]


def _fill(mem: Memory, n: int = 20) -> list[Message]:
    roles = ("user", "assistant")
    return mem.append(
        "s1", [Message(roles[i % 2], f"{WORDS[i]} {WORDS[i]} {WORDS[i]}", T0 + i * NS) for i in range(n)]
    )


def _line(m: Message) -> str:
    return f"[{format_rfc3339(m.send_at)} · {m.role}] {m.content}"


@pytest.fixture
def small_window(memory: Memory) -> Memory:
    memory.update_settings(max_history_messages=4)
    return memory


def test_declaration_is_a_json_schema() -> None:
    declaration = chat_history.DECLARATION
    assert declaration["name"] == "chat_history"
    props = declaration["parameters"]["properties"]
    assert props["match"]["enum"] == ["semantic", "keyword", "hybrid"]
    assert props["scope"]["enum"] == ["recent", "all"]
    assert "no task history" in declaration["description"]


def test_semantic_expands_two_before_one_after(small_window: Memory) -> None:
    stored = _fill(small_window)
    small_window.wait_idle(timeout=60)
    text = chat_history.execute(small_window, "s1", {"keyword": "hotel", "limit": 1})
    assert text == "\n".join(_line(m) for m in stored[5:9])


def test_semantic_excludes_window_plus_one(small_window: Memory) -> None:
    stored = _fill(small_window)
    small_window.wait_idle(timeout=60)
    # the window is the last 4; with the current input, the last 5 (papa..tango) are excluded
    for word in ("papa", "quebec", "tango"):
        text = chat_history.execute(small_window, "s1", {"keyword": f"{word} {word} {word}", "limit": 1})
        assert word not in text
    text = chat_history.execute(small_window, "s1", {"keyword": "oscar oscar oscar", "limit": 1})
    # expansion reaches 2 before and would reach 1 after (papa), which is excluded
    assert text == "\n".join(_line(m) for m in stored[12:15])


def test_expansion_merges_runs_and_separates_gaps(small_window: Memory) -> None:
    stored = _fill(small_window)
    small_window.wait_idle(timeout=60)
    ranked = [stored[4].id or 0, stored[5].id or 0, stored[11].id or 0]
    text = chat_history.format_expanded(stored, set(), ranked, 3)
    expected = [_line(m) for m in stored[2:7]] + [""] + [_line(m) for m in stored[9:13]]
    assert text == "\n".join(expected)
    excluded = {stored[3].id}
    text = chat_history.format_expanded(stored, excluded, [stored[4].id or 0], 1)
    assert text == "\n".join([_line(stored[2]), "", _line(stored[4]), _line(stored[5])])


def test_no_history_and_no_match(small_window: Memory) -> None:
    small_window.append("s1", [Message("user", "hello", T0)])
    small_window.wait_idle(timeout=60)
    assert chat_history.execute(small_window, "s1", {"keyword": "hello"}) == "no matches with keyword: hello"
    assert chat_history.execute(small_window, "nope", {"keyword": "x"}) == "session not exist"


class BrokenEmbedder(HashEmbedder):
    def encode_documents(self, texts: list[str]) -> Vectors:
        raise VectorIndexError("no embedder")

    def encode_query(self, text: str) -> Vectors:
        raise VectorIndexError("no embedder")


def test_without_embedder_semantic_says_no_matches(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock, embedder=BrokenEmbedder()) as mem:
        mem.update_settings(max_history_messages=2)
        _fill(mem)
        assert chat_history.execute(mem, "s1", {"keyword": "hotel"}) == "no matches with keyword: hotel"
        keyword = chat_history.execute(mem, "s1", {"keyword": "hotel", "match": "keyword"})
        assert "hotel hotel hotel" in keyword


def test_modes_and_limits(small_window: Memory) -> None:
    _fill(small_window)
    assert chat_history.execute(small_window, "s1", {}) == "no finished tasks yet"
    assert chat_history.execute(small_window, "s1", {"task_id": "x"}) == "no finished tasks yet"
    assert chat_history.execute(small_window, "s1", {"mode": "dance"}) == "unknown mode: dance"
    assert "required" in chat_history.execute(small_window, "s1", {"mode": "search", "keyword": " "})
    assert chat_history._limit(0) == 8 and chat_history._limit(99) == 32 and chat_history._limit("x") == 8


def test_keyword_sections(home: Path, clock: FakeClock) -> None:
    clock.now = T0 + 3600 * NS
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=4096)
        texts = ["the walrus sings"] + [f"filler {i} " + "x" * 120 for i in range(40)] + ["walrus again"]
        mem.append(
            "s1", [Message(("user", "assistant")[i % 2], t, T0 + i * NS, "Ann") for i, t in enumerate(texts)]
        )
        text = chat_history.execute(mem, "s1", {"keyword": "walrus", "match": "keyword"})
    archive_part, recent_part = text.split("\n\n")
    assert archive_part.splitlines()[0] == "[archive]"
    assert archive_part.splitlines()[1].endswith("· user · Ann] the walrus sings")
    assert recent_part.splitlines() == ["[recent]", recent_part.splitlines()[1]]
    assert recent_part.endswith("walrus again")


def test_hybrid_and_scope_all(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=4096, max_history_messages=4)
        texts = ["the walrus sings opera"] + [f"filler {i} " + "x" * 120 for i in range(40)]
        mem.append("s1", [Message(("user", "assistant")[i % 2], t, T0 + i * NS) for i, t in enumerate(texts)])
        mem.wait_idle(timeout=60)
        recent = chat_history.execute(mem, "s1", {"keyword": "walrus sings opera", "limit": 1})
        assert "walrus" not in recent
        for match in ("semantic", "hybrid"):
            found = chat_history.execute(
                mem, "s1", {"keyword": "walrus sings opera", "match": match, "scope": "all", "limit": 1}
            )
            assert found.splitlines()[0].endswith("the walrus sings opera")
