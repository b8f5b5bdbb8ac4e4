"""The error-memory LLM tools (declarations, mode inference, executors) and the hint after a tool call."""

from __future__ import annotations

import json

import pytest

from engine import Memory
from engine.errormemory import hint
from engine.tools import error_history as tools


def test_declarations_are_plain_json_schema() -> None:
    names = [d["name"] for d in tools.DECLARATIONS]
    assert names == ["error_history", "remember_error", "search_error_memory"]
    for declaration in tools.DECLARATIONS:
        assert json.loads(json.dumps(declaration)) == declaration
        assert declaration["parameters"]["type"] == "object"
        assert declaration["description"]
    assert tools.REMEMBER_ERROR["parameters"]["required"] == [
        "tool_name",
        "keywords",
        "symptom",
        "action",
        "outcome",
    ]
    modes = tools.ERROR_HISTORY["parameters"]["properties"]["mode"]["enum"]
    assert modes == ["search", "read", "write"]
    assert set(tools.EXECUTORS) == set(names)


@pytest.mark.parametrize(
    ("args", "mode"),
    [
        ({"hash": "abcdef12", "outcome": "resolved"}, "read"),
        ({"outcome": "resolved", "keyword": "x"}, "write"),
        ({"keyword": "x"}, "search"),
        ({}, "search"),
        ({"mode": "WRITE", "hash": "abcdef12"}, "write"),
        ({"mode": "", "hash": "abcdef12"}, "read"),
    ],
)
def test_mode_inference(args: dict[str, object], mode: str) -> None:
    assert tools.infer_mode(args) == mode


WRITE = {
    "tool_name": "fetch_page",
    "keywords": ["timeout"],
    "symptom": "request timeout after 30s",
    "cause": "slow server",
    "action": "raised the timeout to 90s",
    "outcome": "resolved",
}


def test_write_search_and_read_through_error_history(memory: Memory) -> None:
    assert tools.execute(memory.errors, "error_history", WRITE) == "recorded"
    found = json.loads(tools.execute(memory.errors, "error_history", {"keyword": "request timeout"}))
    assert [r["tool_name"] for r in found] == ["fetch_page"]
    assert found[0]["keywords"] == ["timeout", "error_type:timeout"]
    ident = found[0]["id"]
    read = json.loads(tools.execute(memory.errors, "error_history", {"hash": ident[:8]}))
    assert read["id"] == ident and read["action"] == "raised the timeout to 90s"
    assert tools.execute(memory.errors, "error_history", {"mode": "read", "hash": "00000000"}) == "not found"


def test_search_output_none_and_the_missing_keyword_text(memory: Memory) -> None:
    assert tools.execute(memory.errors, "error_history", {"keyword": "anything at all"}) == "NONE"
    assert tools.execute(memory.errors, "search_error_memory", {}) == (
        "keyword is required when tool is not specified"
    )


def test_aliases(memory: Memory) -> None:
    assert tools.execute(memory.errors, "remember_error", json.dumps(WRITE)) == "recorded"
    found = json.loads(
        tools.execute(memory.errors, "search_error_memory", {"keyword": "timeout", "limit": "2"})
    )
    assert len(found) == 1
    assert tools.execute(memory.errors, "search_error_memory", {"tool_name": "fetch_page"}) != "NONE"


def test_limit_is_clamped(memory: Memory) -> None:
    for i in range(20):
        tools.execute(memory.errors, "remember_error", {**WRITE, "symptom": f"request timeout {i}"})
    assert len(json.loads(tools.execute(memory.errors, "error_history", {"keyword": "timeout"}))) == 4
    assert (
        len(json.loads(tools.execute(memory.errors, "error_history", {"keyword": "timeout", "limit": 0})))
        == 4
    )
    assert (
        len(json.loads(tools.execute(memory.errors, "error_history", {"keyword": "timeout", "limit": 99})))
        == 16
    )


@pytest.mark.parametrize(
    ("name", "args", "start"),
    [
        ("error_history", {**WRITE, "outcome": "fixed"}, "invalid input: outcome must be one of"),
        ("remember_error", {**WRITE, "symptom": ""}, "invalid input: symptom must not be empty"),
        ("remember_error", {**WRITE, "keywords": "timeout"}, "invalid input: keywords must be a list"),
        ("error_history", {"mode": "delete"}, "invalid input: mode must be"),
        ("error_history", {"hash": "abc"}, "invalid input: give at least 8"),
        ("error_history", {"keyword": 5}, "invalid input: keyword must be text"),
        ("error_history", {"keyword": "x", "limit": "many"}, "invalid input: limit must be a number"),
        ("error_history", "{not json", "invalid input: the arguments are not JSON"),
        ("error_history", "[1, 2]", "invalid input: the arguments must be an object"),
    ],
)
def test_bad_arguments_come_back_as_text(memory: Memory, name: str, args: object, start: str) -> None:
    assert tools.execute(memory.errors, name, args).startswith(start)  # type: ignore[arg-type]
    assert memory.errors.count() == 0


def test_failure_hint_names_related_records_of_the_tool(memory: Memory) -> None:
    assert hint.after_tool_call(memory.errors, "fetch_page", "", error="context deadline exceeded") == (
        "[fetch_page] tool=fetch_page failed: context deadline exceeded\nrelated_errors: NONE"
    )
    for i in range(5):
        memory.errors.remember("fetch_page", f"request timeout {i}", "retry", "resolved")
    memory.errors.remember("run_shell", "request timeout", "retry", "resolved")
    message = hint.after_tool_call(memory.errors, "fetch_page", "", error="request timeout again")
    head, related = message.split("\nrelated_errors: ")
    assert head == "[fetch_page] tool=fetch_page failed: request timeout again"
    records = json.loads(related)
    assert len(records) == 3
    assert {r["tool_name"] for r in records} == {"fetch_page"}


def test_empty_result_keeps_no_data_and_appends_records(memory: Memory) -> None:
    assert hint.after_tool_call(memory.errors, "web_search", "") == "[web_search] no data"
    assert hint.after_tool_call(memory.errors, "web_search", "No Data ") == "[web_search] no data"
    memory.errors.remember("web_search", "no results for the quoted phrase", "dropped the quotes", "resolved")
    message = hint.after_tool_call(memory.errors, "web_search", "no data")
    assert message.startswith("[web_search] no data\nrelated_errors: [")
    assert json.loads(message.split("related_errors: ")[1])[0]["action"] == "dropped the quotes"
    # another tool's no-data records are not this tool's
    assert hint.after_tool_call(memory.errors, "fetch_page", "") == "[fetch_page] no data"


def test_a_normal_result_is_unchanged(memory: Memory) -> None:
    assert hint.after_tool_call(memory.errors, "fetch_page", "<html>") == "[fetch_page] <html>"
