"""The MCP server's tools in process, through the same ``run_tool`` the server calls (argument check,
run, result shape); the stdio round trips are in tests/e2e/test_mcp*.py."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from engine import Memory, Message
from engine.mcpserver import paging, resources
from engine.mcpserver.adapter import Catalog, Context
from engine.mcpserver.resources import RESOURCE_PAGE
from engine.mcpserver.server import INSTRUCTIONS, describe, run_tool
from engine.mcpserver.tools import mcp_tools
from tests.engine.conftest import FakeClock

NS = 1_000_000_000
DAY = 86_400 * NS
OLD = 1_600_000_000 * NS  # 2020-09-13, years before the fake clock's "now"
SPECS = {spec.name: spec for spec in mcp_tools()}


@pytest.fixture
def ctx(memory: Memory) -> Context:
    return Context(memory, Catalog(memory))


def call(ctx: Context, name: str, args: Any) -> dict[str, Any]:
    """A successful call's structuredContent (checked against the tool's output schema and its text)."""
    answer = run_tool(SPECS[name], ctx, args)
    text = answer.content[0].text  # type: ignore[union-attr]
    assert not answer.is_error, text
    assert answer.structured_content is not None
    jsonschema.validate(answer.structured_content, SPECS[name].output_schema)
    assert json.loads(text) == answer.structured_content
    assert len(text) <= paging.PAGE_CHARS
    return answer.structured_content


def refused(ctx: Context, name: str, args: Any) -> str:
    """A refused call's one line of text."""
    answer = run_tool(SPECS[name], ctx, args)
    assert answer.is_error and answer.structured_content is None
    text: str = answer.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text
    return text


def msg(role: str, content: str, send_at: int, sender: str = "") -> Message:
    return Message(role, content, send_at, sender)


def test_every_tool_is_described_for_agents() -> None:
    assert len(INSTRUCTIONS) < 2048
    for spec in mcp_tools():
        tool = describe(spec)
        assert tool.title and tool.annotations is not None and len(spec.description) < 2048
        assert tool.annotations.open_world_hint is False
        assert tool.annotations.read_only_hint is spec.read_only
        assert spec.input_schema["type"] == "object" and spec.input_schema["additionalProperties"] is False
        assert spec.output_schema["type"] == "object"
    destructive = {s.name for s in mcp_tools() if s.destructive}
    assert destructive == {"forget_message", "forget_session", "forget_error"}
    assert {s.name for s in mcp_tools() if s.read_only} == {
        "search",
        "read",
        "list_sessions",
        "turn_context",
        "search_error_memory",
        "read_error",
    }


def test_search_covers_every_session_and_all_time(ctx: Context, memory: Memory) -> None:
    long_text = "filler words " * 300 + "the launch code is persimmon " + "more filler " * 300
    memory.append("chat-old", [msg("user", "what colour is the bikeshed", OLD, "ann")])
    memory.append("chat-old", [msg("assistant", "the bikeshed is teal", OLD + NS)])
    memory.append("chat-new", [msg("user", long_text, OLD + 400 * DAY)])
    assert memory.wait_idle(timeout=60)  # a search never waits for the embedder: let it finish first
    for match in ("keyword", "hybrid", "semantic"):
        found = call(ctx, "search", {"query": "bikeshed colour", "match": match})
        assert {h["session"] for h in found["hits"]} >= {"chat-old"}, match
    hit = call(ctx, "search", {"query": "bikeshed colour", "match": "keyword"})["hits"][0]
    assert hit == {
        "session": "chat-old",
        "title": "what colour is the bikeshed",
        "time": "2020-09-13T12:26:40Z",
        "role": "user",
        "sender": "ann",
        "snippet": "what colour is the bikeshed",
        "matched": ["bikeshed", "colour"],
        "messageId": hit["messageId"],
        "read": {"session": "chat-old", "around": hit["messageId"]},
        "score": hit["score"],
        "kind": "keyword",
    }
    assert hit["score"] > 0
    far = call(ctx, "search", {"query": "persimmon", "match": "keyword"})["hits"][0]
    assert len(far["snippet"]) <= 300 and "persimmon" in far["snippet"] and far["matched"] == ["persimmon"]
    assert far["snippet"].startswith("…") and far["snippet"].endswith("…")


def test_search_filters_and_says_plainly_when_nothing_matches(ctx: Context, memory: Memory) -> None:
    memory.append(
        "s1",
        [
            msg("user", "deploy the parser on friday", OLD, "ann"),
            msg("assistant", "the parser deploy is set", OLD + DAY),
        ],
    )
    memory.append("s2", [msg("user", "parser benchmarks", OLD + 10 * DAY, "bob")])

    def sessions_of(**args: Any) -> list[tuple[str, str]]:
        found = call(ctx, "search", {"query": "parser", "match": "keyword", **args})
        return sorted((h["session"], h["role"]) for h in found["hits"])

    assert sessions_of(role="assistant") == [("s1", "assistant")]
    assert sessions_of(sender="BOB") == [("s2", "user")]
    assert sessions_of(session="s2") == [("s2", "user")]
    assert sessions_of(since="2020-09-14") == [("s1", "assistant"), ("s2", "user")]
    assert sessions_of(until="2020-09-13") == [("s1", "user")]
    assert sessions_of(since="2020-09-14T00:00:00Z", until="2020-09-20") == [("s1", "assistant")]
    none = call(ctx, "search", {"query": "zeppelin", "match": "keyword"})
    assert none["hits"] == [] and none["summary"].startswith("No messages match 'zeppelin'")
    assert "since is after until" in refused(
        ctx, "search", {"query": "parser", "since": "2021-01-01", "until": "2020-01-01"}
    )
    assert "not a date" in refused(ctx, "search", {"query": "parser", "since": "2020-13-45"})
    assert "no session 'nope'" in refused(ctx, "search", {"query": "parser", "session": "nope"})


def test_a_filtered_search_pages_through_every_match_it_admits(
    ctx: Context, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.search import fulltext

    monkeypatch.setattr(
        fulltext, "CANDIDATES", 5
    )  # each word's 5 newest matches: all assistant ones, unfiltered
    early = [msg("user", f"walrus sighting {i}", OLD + i * NS, "Zoë") for i in range(5)]
    memory.append("s", early + [msg("assistant", f"walrus talk {i}", OLD + DAY + i * NS) for i in range(30)])
    assert memory.wait_idle(timeout=60)
    for match in ("keyword", "semantic", "hybrid"):
        seen: list[int] = []
        args: dict[str, Any] = {"query": "walrus", "match": match, "limit": 2, "sender": "ZOË"}
        args["until"] = "2020-09-13T12:26:45Z"
        while True:
            page = call(ctx, "search", args)
            seen += [h["messageId"] for h in page["hits"]]
            assert {h["sender"] for h in page["hits"]} <= {"Zoë"}
            if "nextCursor" not in page:
                break
            args = {**args, "cursor": page["nextCursor"]}
        assert sorted(seen) == sorted(m.id for m in memory.archived("s")[:5]), match


def test_search_pages_with_an_opaque_cursor_bound_to_its_query(ctx: Context, memory: Memory) -> None:
    memory.append("s", [msg("user", f"walrus number {i}", OLD + i * NS) for i in range(25)])
    seen: list[int] = []
    args: dict[str, Any] = {"query": "walrus", "match": "keyword", "limit": 10}
    pages = 0
    while True:
        page = call(ctx, "search", args)
        seen += [h["messageId"] for h in page["hits"]]
        pages += 1
        if "nextCursor" not in page:
            break
        args = {**args, "cursor": page["nextCursor"]}
    assert pages == 3 and len(seen) == len(set(seen)) == 25
    first = call(ctx, "search", {"query": "walrus", "match": "keyword", "limit": 10})
    assert "other arguments" in refused(ctx, "search", {"query": "seal", "cursor": first["nextCursor"]})
    assert "not a cursor" in refused(ctx, "search", {"query": "walrus", "cursor": "bm9wZQ"})


def test_list_sessions_pages_titles_and_times_newest_first(
    ctx: Context, memory: Memory, clock: FakeClock
) -> None:
    for i in range(45):
        memory.append(
            f"s{i:02d}",
            [
                msg("assistant", "hello, how can I help", OLD + i * DAY),
                msg("user", f"topic {i}: " + "a long first question " * 10, OLD + i * DAY + NS),
            ],
        )
    memory.append("temp-sub", [msg("user", "subagent", OLD)])
    memory.append("priv-1", [msg("user", "private", OLD)])
    ids: list[str] = []
    args: dict[str, Any] = {}
    while True:
        page = call(ctx, "list_sessions", args)
        assert page["total"] == 45
        ids += [s["id"] for s in page["sessions"]]
        if "nextCursor" not in page:
            break
        args = {"cursor": page["nextCursor"]}
    assert ids == [f"s{i:02d}" for i in reversed(range(45))]
    top = call(ctx, "list_sessions", {"limit": 1})["sessions"][0]
    assert top["title"].startswith("topic 44: a long first question") and len(top["title"]) <= 60
    assert top["firstMessage"] == "2020-10-27T12:26:40Z" and top["lastMessage"] == "2020-10-27T12:26:41Z"
    assert top["messages"] == 2
    assert [s["id"] for s in call(ctx, "list_sessions", {"query": "TOPIC 7:"})["sessions"]] == ["s07"]
    dated = call(ctx, "list_sessions", {"since": "2020-10-20", "until": "2020-10-21"})
    assert [s["id"] for s in dated["sessions"]] == ["s38", "s37"]
    with_temp = call(ctx, "list_sessions", {"include_temp": True, "limit": 100})["sessions"]
    assert "temp-sub" in {s["id"] for s in with_temp} and "priv-1" not in {s["id"] for s in with_temp}
    assert call(ctx, "list_sessions", {"query": "nothing-like-this"})["summary"] == "No sessions match."


def test_list_sessions_pages_the_list_its_first_page_made_while_sessions_change(
    ctx: Context, memory: Memory
) -> None:
    for i in range(30):
        memory.append(f"s{i:02d}", [msg("user", f"topic {i}", OLD + i * DAY)])
    first = call(ctx, "list_sessions", {"limit": 10})
    ids = [s["id"] for s in first["sessions"]]
    # meanwhile: a session further down gets a message (it moves to the top of a new list), one is
    # removed and a new one begins
    memory.append("s03", [msg("assistant", "a late reply", OLD + 40 * DAY)])
    memory.remove("s05")
    memory.append("s99", [msg("user", "a new topic", OLD + 41 * DAY)])
    cursor = first["nextCursor"]
    while cursor:
        page = call(ctx, "list_sessions", {"limit": 10, "cursor": cursor})
        assert page["total"] == 30
        ids += [s["id"] for s in page["sessions"]]
        cursor = page.get("nextCursor")
    assert ids == [f"s{i:02d}" for i in reversed(range(30)) if i != 5]  # s03 once, in its first place
    moved = next(s for s in call(ctx, "list_sessions", {"limit": 100})["sessions"] if s["id"] == "s03")
    assert moved["messages"] == 2  # a new listing shows it as it is now


def test_the_resources_list_pages_the_list_its_first_page_made(ctx: Context, memory: Memory) -> None:
    for i in range(RESOURCE_PAGE + 30):
        memory.append(f"s{i:03d}", [msg("user", f"topic {i}", OLD + i * DAY)])
    listed, cursor = resources.list_page(ctx, None)
    memory.append("s010", [msg("assistant", "a late reply", OLD + 400 * DAY)])  # moves up, not yet listed
    while cursor is not None:
        more, cursor = resources.list_page(ctx, cursor)
        listed += more
    names = [r.name for r in listed]
    assert names == [f"s{i:03d}" for i in reversed(range(RESOURCE_PAGE + 30))]


def test_read_pages_both_ways_windows_and_slices(ctx: Context, memory: Memory) -> None:
    stored = memory.append("s", [msg("user", f"line {i}", OLD + i * NS) for i in range(30)])
    ids = [m.id for m in stored]
    big = memory.append("s", [msg("assistant", "x" * 20_000 + "END", OLD + 100 * NS)])[0]
    ids.append(big.id)

    def walk(**args: Any) -> list[int]:
        got: list[int] = []
        query: dict[str, Any] = {"session": "s", "limit": 7, **args}
        while True:
            page = call(ctx, "read", query)
            got += [m["id"] for m in page["messages"]]
            if "nextCursor" not in page:
                return got
            query = {**query, "cursor": page["nextCursor"]}

    assert walk() == ids
    assert walk(order="newest") == list(reversed(ids))
    window = call(ctx, "read", {"session": "s", "around": ids[10], "limit": 5})
    assert [m["id"] for m in window["messages"]] == ids[8:13]
    after = call(ctx, "read", {"session": "s", "around": ids[10], "limit": 5, "cursor": window["nextCursor"]})
    assert [m["id"] for m in after["messages"]][:2] == ids[13:15]
    back = call(ctx, "read", {"session": "s", "around": ids[10], "limit": 5, "order": "newest"})
    assert [m["id"] for m in back["messages"]] == list(reversed(ids[8:13]))
    cut = call(ctx, "read", {"session": "s", "order": "newest", "limit": 1})["messages"][0]
    assert len(cut["text"]) == 4000 and cut["chars"] == 20_003 and cut["nextOffset"] == 4000
    text, offset = "", 0
    while True:
        part = call(ctx, "read", {"session": "s", "message": big.id, "offset": offset})["messages"][0]
        text += part["text"]
        if "nextOffset" not in part:
            break
        offset = part["nextOffset"]
    assert text == big.content
    assert "no message #999999" in refused(ctx, "read", {"session": "s", "around": 999_999})
    assert "no session" in refused(ctx, "read", {"session": "missing"})


def test_save_is_idempotent_on_an_exact_retry(ctx: Context, memory: Memory, clock: FakeClock) -> None:
    pair = [
        {"role": "user", "content": "remember: tabs", "sendAt": OLD, "sender": "ann"},
        {"role": "assistant", "content": "noted", "sendAt": OLD + NS},
    ]
    first = call(ctx, "save", {"session": "agent-1", "messages": pair})
    again = call(ctx, "save", {"session": "agent-1", "messages": pair})
    assert (first["saved"], first["alreadyPresent"]) == (2, 0)
    assert (again["saved"], again["alreadyPresent"]) == (0, 2) and again["ids"] == first["ids"]
    assert [(m.content, m.sender) for m in memory.history("agent-1")] == [
        ("remember: tabs", "ann"),
        ("noted", ""),
    ]
    untimed = {"session": "agent-1", "messages": [{"role": "user", "content": "hi"}]}
    call(ctx, "save", untimed)
    clock.advance(1)
    call(ctx, "save", untimed)
    assert [m.content for m in memory.history("agent-1")].count("hi") == 2
    assert memory.history("agent-1")[-1].send_at == clock.now


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"session": "a", "messages": []}, "messages must hold at least 1 item"),
        ({"session": "../x", "messages": [{"role": "user", "content": "x"}]}, "session"),
        ({"session": "con", "messages": [{"role": "user", "content": "x"}]}, "invalid session id"),
        ({"session": "a", "messages": ["text"]}, "messages[0] must be an object, not a string"),
        ({"session": "a", "messages": [{"role": "user", "content": "x", "sendAt": "soon"}]}, "sendAt"),
        ({"session": "a", "messages": [{"role": "user", "content": "x", "sendAt": 1.5}]}, "before 1990"),
        ({"session": "a", "messages": [{"role": "system", "content": "x"}]}, "one of user, assistant"),
        ({"session": "a", "messages": [{"role": "user", "content": 3}]}, "content must be a string"),
        ({"session": "a", "messages": [{"role": "user", "content": "  "}]}, "blank"),
        ({"session": "a", "messages": [{"role": "user", "content": "a\x00b"}]}, "NUL"),
        (
            {"session": "a", "messages": [{"role": "user", "text": "x"}]},
            '"text" is not a field of messages[0]',
        ),
        ({"session": "a", "messages": [{"role": "user"}]}, "messages[0].content is required"),
        ({"messages": [{"role": "user", "content": "x"}]}, "session is required"),
    ],
)
def test_save_refuses_bad_input_in_one_sentence_and_writes_nothing(
    ctx: Context, memory: Memory, args: dict[str, Any], words: str
) -> None:
    assert words in refused(ctx, "save", args)
    assert memory.sessions() == []


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("search", {"keyword": 5}, '"keyword" is not an argument of search'),
        ("search", {"query": 5}, "query must be a string, not an integer (5)"),
        ("search", {"query": "x", "limit": "ten"}, 'limit must be an integer, not a string ("ten")'),
        ("search", {"query": "x", "limit": 0}, "limit must be at least 1"),
        ("search", {"query": "x", "limit": True}, "limit must be an integer, not true or false"),
        ("search", {"query": "x", "match": "fuzzy"}, "match must be one of hybrid, keyword, semantic"),
        ("search", {"query": ""}, "query must not be empty"),
        ("search", {"query": " "}, "query is blank"),
        ("search", [], "the arguments must be a JSON object"),
        ("list_sessions", {"include_temp": "yes"}, "include_temp must be true or false"),
        ("list_sessions", {"limit": 1000}, "limit must be at most 100"),
        ("read", {}, "session is required"),
        ("read", {"session": "s", "around": "7"}, "around must be an integer"),
        ("read", {"session": "s", "offset": 3}, "offset goes with message"),
        ("read", {"session": "s", "order": "random"}, "order must be one of oldest, newest"),
        ("read", {"session": "priv-x"}, "temporary chat"),
        ("turn_context", {"session": 7}, "session must be a string"),
        ("forget_message", {"session": "s"}, "message is required"),
        ("forget_session", {"session": "s", "all": True}, '"all" is not an argument of forget_session'),
        ("search_error_memory", {}, "give query"),
        ("read_error", {"id": "xyz"}, 'id "xyz" has the wrong form'),
        ("remember_error", {"tool_name": "t", "symptom": "s", "action": "a"}, "outcome is required"),
        ("forget_error", {"id": 12345678}, "id must be a string"),
    ],
)
def test_a_bad_argument_is_one_clear_sentence(ctx: Context, name: str, args: Any, words: str) -> None:
    text = refused(ctx, name, args)
    assert text.startswith(f"invalid arguments for {name}: ") and words in text, text


def test_forget_a_message_or_a_session(ctx: Context, memory: Memory) -> None:
    a = memory.append("a", [msg("user", "secret plan alpha", OLD), msg("user", "keep this", OLD + NS)])
    memory.append("b", [msg("user", "other", OLD)])
    assert "no message" in refused(ctx, "forget_message", {"session": "b", "message": a[0].id})
    assert [m.content for m in memory.history("a")] == ["secret plan alpha", "keep this"]
    gone = call(ctx, "forget_message", {"session": "a", "message": a[0].id})
    assert gone["messageId"] == a[0].id and gone["role"] == "user"
    assert call(ctx, "search", {"query": "alpha", "match": "keyword"})["hits"] == []
    assert call(ctx, "list_sessions", {"query": "a"})["sessions"][0]["messages"] == 1
    assert call(ctx, "forget_session", {"session": "b"})["removedMessages"] == 1
    assert not memory.exists("b") and "forgotten already" in refused(ctx, "forget_session", {"session": "b"})
    assert "no session" in refused(ctx, "forget_session", {"session": "never-was"})


def test_turn_context_and_the_error_memory(ctx: Context, memory: Memory) -> None:
    memory.append("s", [msg("user", "we indent with tabs", OLD)])
    context = call(ctx, "turn_context", {"session": "s", "request": "indent?"})
    assert context["messages"][0]["content"].endswith("we indent with tabs")
    assert call(ctx, "turn_context", {"session": "fresh"})["messages"][0]["content"].startswith(
        "Turn context"
    )
    record = {
        "tool_name": "fetch_page",
        "symptom": "timeout after 30 s",
        "action": "raised the timeout to 90 s",
        "outcome": "resolved",
        "keywords": ["timeout"],
    }
    written = call(ctx, "remember_error", record)
    assert not written["refreshed"] and call(ctx, "remember_error", record)["refreshed"]
    found = call(ctx, "search_error_memory", {"query": "fetch_page timeout"})["records"]
    assert [r["action"] for r in found] == ["raised the timeout to 90 s"]
    short = written["record"]["id"][:10]
    assert call(ctx, "read_error", {"id": short})["record"]["tool"] == "fetch_page"
    assert call(ctx, "forget_error", {"id": short})["record"]["id"] == written["record"]["id"]
    assert "no error record" in refused(ctx, "read_error", {"id": short})
    assert call(ctx, "search_error_memory", {"query": "timeout"})["summary"].startswith("No past errors")


def _strings(schema: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    kinds = schema.get("type")
    if kinds == "string" or (isinstance(kinds, list) and "string" in kinds):
        found.append((path, schema))
    for name, sub in schema.get("properties", {}).items():
        found += _strings(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        found += _strings(schema["items"], f"{path}[]")
    return found


def test_every_argument_is_bounded() -> None:
    for spec in mcp_tools():
        for path, schema in _strings(spec.input_schema, spec.name):
            assert "maxLength" in schema or "enum" in schema, path
        for path, schema in [(spec.name, spec.input_schema)]:
            for name, sub in schema["properties"].items():
                if sub.get("type") == "array":
                    assert "maxItems" in sub, f"{path}.{name}"
