"""One ranking, paged: a search of N hits is the first N of a search of 10N, in every mode and through every
face (``Memory.search``, the CLI's ``--limit``, the MCP ``search`` tool's cursor), and paging a ranking to
its end meets each hit exactly once."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli import main
from engine.embedders.hashing import HashEmbedder
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.server import run_tool
from engine.mcpserver.tools import mcp_tools
from engine.search.hits import MATCHES, MAX_LIMIT

NS = 1_000_000_000
T0 = 1_700_000_000 * NS
WORDS = [
    "django",
    "model",
    "view",
    "query",
    "cache",
    "deploy",
    "budget",
    "python",
    "server",
    "index",
    "migration",
    "tests",
]
SPECS = {spec.name: spec for spec in mcp_tools()}


def _corpus(seed: int, size: int, long_share: float = 0.0) -> list[Message]:
    """Messages of a few common words, so that many hits tie or nearly tie (where a depth-dependent
    ranking shows); ``long_share`` of them long (600-1,500 words: several passages each)."""
    rng = random.Random(seed)
    messages = []
    for n in range(size):
        long = rng.random() < long_share
        words = rng.choices(WORDS, k=rng.randint(600, 1_500) if long else rng.randint(2, 9))
        messages.append(Message(("user", "assistant")[n % 2], " ".join(words), T0 + n * NS, ""))
    return messages


def _fill(mem: Memory, seed: int, size: int, long_share: float = 0.0) -> None:
    messages = _corpus(seed, size, long_share)
    half = len(messages) // 2
    mem.append("s1", messages[:half])
    mem.append("s2", messages[half:])
    assert mem.wait_idle(timeout=120)


def _ids(mem: Memory, query: str, match: str, limit: int) -> list[int]:
    return [h.message.id or 0 for h in mem.search(query, match=match, limit=limit)]


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    size=st.integers(20, 320),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    limit=st.integers(1, MAX_LIMIT // 10),
)
def test_a_search_of_n_hits_is_the_first_n_of_a_search_of_10n(
    seed: int, size: int, query: str, limit: int
) -> None:
    with tempfile.TemporaryDirectory() as folder, Memory.open(Path(folder), embedder=HashEmbedder()) as mem:
        _fill(mem, seed, size)
        for match in MATCHES:
            deep = _ids(mem, query, match, limit * 10)
            assert _ids(mem, query, match, limit) == deep[:limit], match
            assert len(set(deep)) == len(deep), match
            assert _ids(mem, query, match, MAX_LIMIT)[: len(deep)] == deep, match


@pytest.fixture
def big(memory: Memory) -> Memory:
    _fill(memory, seed=26, size=400)
    return memory


def _mcp_pages(ctx: Context, args: dict[str, Any]) -> list[int]:
    """Every hit of an MCP search, paged to the end with its cursor."""
    seen: list[int] = []
    cursor: str | None = None
    for _ in range(MAX_LIMIT + 1):
        answer = run_tool(SPECS["search"], ctx, {**args, **({"cursor": cursor} if cursor else {})})
        assert not answer.is_error, answer.content
        result = answer.structured_content
        assert result is not None
        seen += [hit["messageId"] for hit in result["hits"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            return seen
    raise AssertionError("the pages never ended")


@pytest.mark.parametrize("match", MATCHES)
@pytest.mark.parametrize("size", [3, 7, 10])
def test_mcp_pages_hold_each_hit_of_one_ranking_exactly_once(big: Memory, match: str, size: int) -> None:
    ctx = Context(big, Catalog(big))
    paged = _mcp_pages(ctx, {"query": "django cache", "match": match, "limit": size})
    assert len(paged) == len(set(paged))  # no hit twice
    assert paged == _ids(big, "django cache", match, MAX_LIMIT)  # none skipped: the one ranking, in order
    assert len(paged) > 50  # deep enough that the old depth-by-page would have shown


@pytest.mark.parametrize("match", MATCHES)
def test_long_messages_rank_once_by_their_best_passage_on_every_page(memory: Memory, match: str) -> None:
    _fill(memory, seed=15, size=300, long_share=0.15)
    with memory._store.read() as conn:
        assert int(conn.execute("SELECT COUNT(DISTINCT message_id) FROM passages").scalar_one()) > 20
    deep = _ids(memory, "django cache", match, MAX_LIMIT)
    assert len(deep) == len(set(deep)) and len(deep) > 50
    for limit in (1, 7, 19):
        assert _ids(memory, "django cache", match, limit) == deep[:limit]
    ctx = Context(memory, Catalog(memory))
    assert _mcp_pages(ctx, {"query": "django cache", "match": match, "limit": 7}) == deep


def test_cli_limit_n_is_the_first_n_of_limit_10n(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory.open(home) as mem:
        mem.update_settings(embedder="hash")
    with Memory.open(home) as mem:
        _fill(mem, seed=7, size=300)

    def cli_ids(match: str, limit: int) -> list[int]:
        argv = [
            "--home",
            str(home),
            "search",
            "django model",
            "--match",
            match,
            "--limit",
            str(limit),
            "--json",
        ]
        assert main(argv) == 0
        return [hit["id"] for hit in json.loads(capsys.readouterr().out)]

    for match in MATCHES:
        for limit in (1, 11, 20):
            deep = cli_ids(match, limit * 10)
            assert cli_ids(match, limit) == deep[:limit], (match, limit)
