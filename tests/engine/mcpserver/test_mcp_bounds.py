"""Every page of every MCP tool stays under the size bound, at small scale with the largest items the
tools allow (128-character session ids, long titles, 10,000-character messages, 8 KiB error records);
``bench/mcp.py`` measures the same at 2,000 sessions and 200,000 messages."""

from __future__ import annotations

from typing import Any

import mcp.types as types
import pytest

from engine import Memory, Message
from engine.imported import ImportedSession
from engine.mcpserver import resources
from engine.mcpserver.adapter import Catalog, Context
from tests.engine.mcpserver.test_mcp_tools import call

NS = 1_000_000_000
OLD = 1_600_000_000 * NS
BOUND = 20_000  # what a host should ever get from one call (PAGE_CHARS is the tools' own, lower bound)
WORDS = "ünïcode wörds and the needle " * 70  # ~2,000 characters
LONG = "x" * 10_000


@pytest.fixture
def big(memory: Memory) -> Context:
    sessions = [
        ImportedSession(
            f"s{i:03d}-" + "x" * 123,
            [
                Message("user", f"{i} needle " + WORDS, OLD + i * 60 * NS, "s" * 256),
                Message("assistant", "needle " + WORDS, OLD + i * 60 * NS + NS),
            ],
        )
        for i in range(70)
    ]
    sessions.append(ImportedSession("long", [Message("user", LONG, OLD + i * NS) for i in range(5)]))
    memory.import_sessions(sessions)
    memory.wait_idle()
    return Context(memory, Catalog(memory))


def walk(ctx: Context, name: str, args: dict[str, Any], key: str) -> int:
    """Page through a listing with ``call`` (which checks each page's size); how many items it gave."""
    total = 0
    while True:
        page = call(ctx, name, args)
        total += len(page[key])
        if "nextCursor" not in page:
            return total
        args = {**args, "cursor": page["nextCursor"]}


def test_pages_stay_under_the_bound_with_the_largest_items(big: Context, memory: Memory) -> None:
    first = call(big, "list_sessions", {"limit": 100})
    assert 40 < len(first["sessions"]) < 71 and "nextCursor" in first  # cut by size, not by count
    assert walk(big, "list_sessions", {"limit": 100}, "sessions") == 71
    for match in ("keyword", "hybrid", "semantic"):
        page = call(big, "search", {"query": "needle wörds", "match": match, "limit": 50})
        assert 10 < len(page["hits"]) < 50 and "nextCursor" in page
        assert walk(big, "search", {"query": "needle wörds", "match": match, "limit": 50}, "hits") >= 140
    page = call(big, "read", {"session": "long", "limit": 50})
    assert len(page["messages"]) == 3 and all(m["chars"] == 10_000 for m in page["messages"])
    assert walk(big, "read", {"session": "long", "limit": 50}, "messages") == 5
    pages, cursor = [], None
    while True:
        listed, cursor = resources.list_page(big, cursor)
        wire = types.ListResourcesResult(
            resources=[
                types.Resource(uri=r.uri, name=r.name, title=r.title, description=r.description)
                for r in listed
            ],
            next_cursor=cursor,
        )
        pages.append(len(wire.model_dump_json(by_alias=True, exclude_none=True)))
        if cursor is None:
            break
    assert len(pages) > 2 and max(pages) <= BOUND


def test_error_records_stay_under_the_bound(memory: Memory) -> None:
    ctx = Context(memory, Catalog(memory))
    for i in range(16):
        call(
            ctx,
            "remember_error",
            {
                "tool_name": f"tool{i}",
                "symptom": "timeout " + "s" * 8000,
                "cause": "c" * 8000,
                "action": "a" * 8000,
                "outcome": "failed",
                "keywords": [f"k{i}-{n}-" + "w" * 190 for n in range(32)],
            },
        )
    found = call(ctx, "search_error_memory", {"query": "timeout", "limit": 16})["records"]
    assert found and all(r["cut"] for r in found)
    assert call(ctx, "read_error", {"id": found[0]["id"]})["record"]["cut"] is True
