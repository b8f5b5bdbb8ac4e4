"""One ranking, paged: a search of N hits is the first N of a search of 10N, in every mode and through every
face (``Memory.search``, the CLI's ``--limit``, the MCP ``search`` tool's cursor), and paging a ranking to
its end meets each hit exactly once."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli import main
from engine.embedders.hashing import HashEmbedder
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.rankings import FIRST_DEPTH
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


def _mcp_pages(ctx: Context, args: dict[str, Any], between: Callable[[int], None] | None = None) -> list[int]:
    """Every hit of an MCP search, paged to the end with its cursor; ``between(n)`` runs after page n."""
    seen: list[int] = []
    cursor: str | None = None
    for page in range(MAX_LIMIT + 1):
        answer = run_tool(SPECS["search"], ctx, {**args, **({"cursor": cursor} if cursor else {})})
        assert not answer.is_error, answer.content
        result = answer.structured_content
        assert result is not None
        seen += [hit["messageId"] for hit in result["hits"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            return seen
        if between is not None:
            between(page)
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


def _kept_then_deeper(before: list[int], after: list[int], gone: frozenset[int] = frozenset()) -> list[int]:
    """What an MCP search pages while the memory changes during its first pages: the first page's ranking to
    the depth the server keeps (``before``, less the ``gone`` ids), then the hits of the ranking done again
    deeper (``after``) that it does not hold, in their order."""
    kept = before[:FIRST_DEPTH]
    return [i for i in kept if i not in gone] + [i for i in after if i not in set(kept)]


@pytest.mark.parametrize("match", MATCHES)
def test_mcp_pages_keep_their_ranking_while_matching_messages_arrive(big: Memory, match: str) -> None:
    before = _ids(big, "django cache", match, MAX_LIMIT)
    arriving = [Message("user", "django cache " * 3, T0 + (1000 + n) * NS, "") for n in range(30)]

    def arrive(page: int) -> None:  # a hook or the save tool adds matches between the agent's pages
        big.append("s3", arriving[page * 10 : page * 10 + 10])
        assert big.wait_idle(timeout=60)

    ctx = Context(big, Catalog(big))
    paged = _mcp_pages(ctx, {"query": "django cache", "match": match, "limit": 7}, arrive)
    after = _ids(big, "django cache", match, MAX_LIMIT)
    assert after[:FIRST_DEPTH] != before[:FIRST_DEPTH]  # ranked again, the first pages would shift
    assert len(paged) == len(set(paged)) > FIRST_DEPTH
    assert paged == _kept_then_deeper(before, after)


@pytest.mark.parametrize("match", ["semantic", "hybrid"])
def test_mcp_pages_keep_their_ranking_while_the_embedder_catches_up(memory: Memory, match: str) -> None:
    corpus = _corpus(31, 400)
    memory.append("s1", corpus[:200])
    assert memory.wait_idle(timeout=120)
    memory.pause_embedding()
    memory.append("s1", corpus[200:])  # queued: meaning search covers half
    before = _ids(memory, "django cache", match, MAX_LIMIT)

    def embed(page: int) -> None:  # after an import the embedder works for minutes: vectors arrive
        if page == 0:
            memory.resume_embedding()
            assert memory.wait_idle(timeout=120)

    ctx = Context(memory, Catalog(memory))
    first = run_tool(SPECS["search"], ctx, {"query": "django cache", "match": match})
    assert first.structured_content is not None and "coverage" in first.structured_content  # partial
    paged = _mcp_pages(ctx, {"query": "django cache", "match": match, "limit": 7}, embed)
    after = _ids(memory, "django cache", match, MAX_LIMIT)
    assert after[:FIRST_DEPTH] != before[:FIRST_DEPTH]
    assert len(paged) == len(set(paged)) > FIRST_DEPTH
    assert paged == _kept_then_deeper(before, after)


def test_a_message_forgotten_between_pages_is_not_shown(big: Memory) -> None:
    before = _ids(big, "django cache", "hybrid", MAX_LIMIT)
    gone = before[12]

    def forget(page: int) -> None:
        if page == 0:
            big.forget_message(gone)

    paged = _mcp_pages(Context(big, Catalog(big)), {"query": "django cache", "limit": 10}, forget)
    assert gone not in paged and len(paged) == len(set(paged))
    assert paged == _kept_then_deeper(
        before, _ids(big, "django cache", "hybrid", MAX_LIMIT), frozenset({gone})
    )


def test_a_cursor_outliving_its_ranking_pages_a_new_ranking_of_the_same_query(big: Memory) -> None:
    args = {"query": "django cache", "match": "keyword", "limit": 10}
    first = run_tool(SPECS["search"], Context(big, Catalog(big)), args).structured_content
    assert first is not None and "nextCursor" in first
    restarted = Context(big, Catalog(big))  # a new server process keeps no rankings
    second = run_tool(SPECS["search"], restarted, {**args, "cursor": first["nextCursor"]})
    assert not second.is_error and second.structured_content is not None
    hits = [hit["messageId"] for hit in first["hits"] + second.structured_content["hits"]]
    assert hits == _ids(big, "django cache", "keyword", 20)
