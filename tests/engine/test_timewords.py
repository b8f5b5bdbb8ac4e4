"""Date bounds in words ("last week", "3 days ago", "上個月") beside ISO dates: MCP since/until, the CLI's
--since/--until, and the parser itself."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main
from engine.errors import InvalidInput
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.server import run_tool
from engine.mcpserver.tools import mcp_tools
from engine.timewords import chinese_number, parse_bound

NS = 1_000_000_000
DAY = 86_400 * NS
NOW = 1_796_000_000 * NS  # 2026-11-30


def _both(text: str) -> tuple[int, int]:
    """The since and until bounds ``text`` gives (Unix ns)."""
    return parse_bound("since", text, end=False, now_ns=NOW), parse_bound("until", text, end=True, now_ns=NOW)


def _day(year: int, month: int, day: int) -> int:
    """Local midnight of that day (Unix ns)."""
    return int(datetime(year, month, day).timestamp()) * NS


@pytest.mark.parametrize(
    ("text", "first", "after"),
    [
        ("yesterday", (2026, 11, 29), (2026, 11, 30)),
        ("昨天", (2026, 11, 29), (2026, 11, 30)),
        ("today", (2026, 11, 30), (2026, 12, 1)),
        ("3 days ago", (2026, 11, 27), (2026, 11, 28)),
        ("last week", (2026, 11, 23), (2026, 11, 30)),  # weeks start on Monday
        ("上個月", (2026, 10, 1), (2026, 11, 1)),
        ("last month", (2026, 10, 1), (2026, 11, 1)),
        ("June 2025", (2025, 6, 1), (2025, 7, 1)),
        ("2025年6月", (2025, 6, 1), (2025, 7, 1)),
        ("2025年6月3日", (2025, 6, 3), (2025, 6, 4)),
        ("2024", (2024, 1, 1), (2025, 1, 1)),
        ("去年", (2025, 1, 1), (2026, 1, 1)),
        ("vorige week", (2026, 11, 23), (2026, 11, 30)),
    ],
)
def test_words_name_a_period_from_its_first_to_its_last_instant(
    taipei: None, text: str, first: tuple[int, int, int], after: tuple[int, int, int]
) -> None:
    # NOW is Monday 2026-11-30, 16:53 in Taipei: "since yesterday" holds all of yesterday, "until June
    # 2025" all of June, "since 2024" all of 2024 (not from the day of the month or year that NOW is)
    assert datetime.fromtimestamp(NOW // NS).strftime("%Y-%m-%d %a") == "2026-11-30 Mon"
    assert _both(text) == (_day(*first), _day(*after) - 1)


def test_a_moment_in_words_is_that_moment(taipei: None) -> None:
    assert parse_bound("since", "2 hours ago", end=False, now_ns=NOW) == NOW - 2 * 3600 * NS
    assert parse_bound("until", "2 hours ago", end=True, now_ns=NOW) == NOW - 2 * 3600 * NS
    assert parse_bound("since", "三小時前", end=False, now_ns=NOW) == NOW - 3 * 3600 * NS


def test_a_bound_is_the_first_and_last_nanosecond_of_its_local_day(taipei: None) -> None:
    since = parse_bound("since", "yesterday", end=False, now_ns=NOW)
    until = parse_bound("until", "yesterday", end=True, now_ns=NOW)
    assert since % 86_400_000_000_000 == 16 * 3600 * NS  # 00:00 in Taipei is 16:00 UTC
    assert until == since + DAY - 1


@pytest.mark.parametrize(
    ("chinese", "same_as"),
    [
        ("三天前", "3 days ago"),
        ("十天前", "10 days ago"),
        ("二十五天前", "25 days ago"),
        ("兩週前", "2 weeks ago"),
        ("两周前", "2 weeks ago"),
        ("兩個禮拜前", "2 weeks ago"),
        ("上星期", "last week"),
        ("上禮拜", "last week"),
        ("這個月", "this month"),
        ("這週", "this week"),
        ("兩個月前", "2 months ago"),
        ("一年前", "1 year ago"),
        ("去年六月", "June 2025"),
        ("今年三月", "March 2026"),
        ("前年", "2024"),
        ("二〇二五年", "2025"),
        ("2025年", "2025"),
        ("十二月", "December 2025"),  # the latest December that has begun
        ("6月3日", "June 3, 2026"),
        ("12月25日", "December 25, 2025"),  # no year: the latest such day that is not after now
        ("上週五", "2026-11-27 words"),  # the Friday of last week
        ("上星期一", "2026-11-23 words"),
        ("星期一", "2026-11-30 words"),  # alone: the latest Monday, today included
        ("禮拜天", "2026-11-29 words"),
    ],
)
def test_chinese_numerals_and_everyday_words_are_read(taipei: None, chinese: str, same_as: str) -> None:
    if same_as.endswith(" words"):
        day = int(datetime.strptime(same_as.split()[0], "%Y-%m-%d").timestamp()) * NS
        assert _both(chinese) == (day, day + DAY - 1)
    else:
        assert _both(chinese) == _both(same_as)


def test_chinese_numbers() -> None:
    cases = {
        "三": 3,
        "十": 10,
        "十二": 12,
        "二十": 20,
        "二十五": 25,
        "兩百": 200,
        "一百零五": 105,
        "二〇二五": 2025,
    }
    assert {text: chinese_number(text) for text in cases} == cases


def test_a_weekday_in_words_starts_at_local_midnight(taipei: None) -> None:
    monday = parse_bound("since", "last monday", end=False, now_ns=NOW) // NS
    local = datetime.fromtimestamp(monday)
    assert (local.hour, local.minute, local.weekday()) == (0, 0, 0)
    assert monday % 86_400 == 16 * 3600  # 00:00 in Taipei is 16:00 UTC


def test_a_time_in_words_beyond_the_dates_python_holds_is_refused() -> None:
    with pytest.raises(InvalidInput, match="'9999' is out of the range of dates"):
        parse_bound("until", "9999", end=True, now_ns=NOW)  # its year ends in the year 10000
    with pytest.raises(InvalidInput, match="is not a date"):
        parse_bound("since", "10000 years ago", end=False, now_ns=NOW)


def test_iso_dates_keep_their_meaning_and_nonsense_is_refused() -> None:
    assert parse_bound("since", "2025-01-31", end=False) == 1_738_281_600 * NS
    assert parse_bound("until", "2025-01-31", end=True) == 1_738_368_000 * NS - 1
    assert parse_bound("since", "2025-01-31T18:00:00+01:00", end=False) == 1_738_342_800 * NS
    for bad in ("banana", "2025-02-30", " ", "x" * 41):
        with pytest.raises(InvalidInput, match="is not a date"):
            parse_bound("since", bad, end=False, now_ns=NOW)


def _history(mem: Memory) -> None:
    now = mem.clock()
    mem.append("s1", [Message("user", "the old budget talk", now - 100 * DAY)])
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


def test_cli_since_yesterday_holds_all_of_yesterday(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    today = datetime.combine(date.today(), datetime.min.time())
    with Memory.open(home) as mem:
        for at, text in (
            (today - timedelta(days=1, seconds=1), "before"),
            (today - timedelta(days=1), "early"),
        ):
            mem.append("s1", [Message("user", f"the {text} budget talk", int(at.timestamp()) * NS)])

    # before the bounds were periods, "yesterday" was this moment a day ago, which left yesterday's early
    # hours out; "2 days ago" now ends with the last instant of that day
    for bound, words, expected in (("--since", "yesterday", "early"), ("--until", "2 days ago", "before")):
        argv = ["--home", str(home), "search", "budget", "--match", "keyword", "--json", bound, words]
        assert main(argv) == 0
        assert [hit["content"] for hit in json.loads(capsys.readouterr().out)] == [
            f"the {expected} budget talk"
        ]


def test_the_cli_reads_a_bare_date_in_the_users_time_zone_and_mcp_in_utc(
    taipei: None, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the CLI shows local times, so a day it is given is a local day; MCP results give UTC times
    midnight = int(datetime(2025, 6, 3).timestamp()) * NS  # local (Taipei) midnight: 16:00 UTC on 2 June
    assert parse_bound("--since", "2025-06-03", end=False, local=True) == midnight
    assert parse_bound("--until", "2025-06-03", end=True, local=True) == midnight + DAY - 1
    assert parse_bound("--since", "2025-06-03T07:30", end=False, local=True) == midnight + 450 * 60 * NS
    assert parse_bound("since", "2025-06-03", end=False) == midnight + 8 * 3600 * NS  # 00:00 UTC
    with Memory.open(home) as mem:
        mem.append("s1", [Message("user", "the early budget talk", midnight + 3600 * NS)])  # 01:00 local
    assert main(["--home", str(home), "search", "budget", "--match", "keyword", "--since", "2025-06-03"]) == 0
    assert "the early budget talk" in capsys.readouterr().out
