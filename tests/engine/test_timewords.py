"""Date bounds in words ("last week", "3 days ago", "上個月") beside ISO dates: MCP since/until, the CLI's
--since/--until, and the parser itself."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main
from engine.errors import InvalidInput
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.server import run_tool
from engine.mcpserver.tools import mcp_tools
from engine.timewords import parse_bound

NS = 1_000_000_000
DAY = 86_400 * NS
NOW = 1_796_000_000 * NS  # 2026-11-30


def test_words_are_read_relative_to_now(taipei: None) -> None:
    assert parse_bound("since", "3 days ago", end=False, now_ns=NOW) == NOW - 3 * DAY
    assert parse_bound("since", "last week", end=False, now_ns=NOW) == NOW - 7 * DAY
    assert parse_bound("since", "yesterday", end=False, now_ns=NOW) == NOW - DAY
    month = datetime.fromtimestamp(parse_bound("since", "上個月", end=False, now_ns=NOW) / NS)
    assert (month.year, month.month, month.day) == (2026, 10, 30)  # one month before, local time


def test_a_weekday_in_words_starts_at_local_midnight(taipei: None) -> None:
    monday = parse_bound("since", "last monday", end=False, now_ns=NOW) // NS
    local = datetime.fromtimestamp(monday)
    assert (local.hour, local.minute, local.weekday()) == (0, 0, 0)
    assert monday % 86_400 == 16 * 3600  # 00:00 in Taipei is 16:00 UTC


def test_iso_dates_keep_their_meaning_and_nonsense_is_refused() -> None:
    assert parse_bound("since", "2025-01-31", end=False) == 1_738_281_600 * NS
    assert parse_bound("until", "2025-01-31", end=True) == 1_738_368_000 * NS - 1
    assert parse_bound("since", "2025-01-31T18:00:00+01:00", end=False) == 1_738_342_800 * NS
    for bad in ("banana", "2025-02-30", " ", "x" * 41):
        with pytest.raises(InvalidInput, match="is not a date"):
            parse_bound("since", bad, end=False, now_ns=NOW)


def _history(mem: Memory) -> None:
    now = mem.clock()
    mem.append("s1", [Message("user", "the old budget talk", now - 40 * DAY)])
    mem.append("s1", [Message("user", "the new budget talk", now - 2 * DAY)])


def test_mcp_search_takes_since_in_words(memory: Memory) -> None:
    _history(memory)
    spec = next(s for s in mcp_tools() if s.name == "search")
    ctx = Context(memory, Catalog(memory))
    for since, expected in (("last week", ["the new budget talk"]), ("上個月", ["the new budget talk"])):
        answer = run_tool(spec, ctx, {"query": "budget", "match": "keyword", "since": since})
        assert answer.structured_content is not None, answer.content
        assert [h["snippet"] for h in answer.structured_content["hits"]] == expected, since
    answer = run_tool(spec, ctx, {"query": "budget", "match": "keyword", "until": "3 weeks ago"})
    assert answer.structured_content is not None
    assert [h["snippet"] for h in answer.structured_content["hits"]] == ["the old budget talk"]
    refused = run_tool(spec, ctx, {"query": "budget", "since": "banana"})
    assert refused.is_error and "is not a date" in refused.content[0].text  # type: ignore[union-attr]


def test_cli_search_takes_since_and_until_in_words(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory.open(home) as mem:
        _history(mem)

    def found(*argv: str) -> list[str]:
        assert main(["--home", str(home), "search", "budget", "--match", "keyword", "--json", *argv]) == 0
        return [hit["content"] for hit in json.loads(capsys.readouterr().out)]

    assert found("--since", "last week") == ["the new budget talk"]
    assert found("--until", "3 weeks ago") == ["the old budget talk"]
    assert sorted(found()) == ["the new budget talk", "the old budget talk"]
    assert main(["--home", str(home), "search", "budget", "--since", "banana"]) != 0
    assert "is not a date" in capsys.readouterr().err
