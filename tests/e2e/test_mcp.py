"""``memtray mcp`` in a subprocess, driven by the ``mcp`` SDK's own stdio client, launched the way Claude
Desktop launches a server (a command and arguments, a minimal environment). The SDK's client checks every
``structuredContent`` against the tool's ``outputSchema``, so a result that breaks its schema fails here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from engine import Memory, Message
from engine.imported import ImportedSession
from engine.mcpserver.paging import PAGE_CHARS
from tests.clirun import CLI, ROOT

NS = 1_000_000_000
OLD = 1_600_000_000 * NS
REQUEST_SECONDS = 120.0
"""How long the client waits for any one answer: an answer that never comes fails its test, with the
request's name, instead of hanging until pytest-timeout ends the whole run (and under Wine, every test
after it)."""


def server(home: Path) -> StdioServerParameters:
    """``memtray mcp`` as a client starts it, running this checkout's code (not an installed copy's)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", CLI, "--home", str(home), "mcp"],
        env={"MEMTRAY_EMBEDDER": "hash"},  # added to the SDK's minimal default environment
        cwd=ROOT,
    )


def run_client(home: Path, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Start ``memtray mcp`` for ``home``, run ``body`` in an initialized session, return its result."""
    result: list[Any] = []

    async def main() -> None:
        with open(home.parent / "mcp-stderr.log", "w") as log:
            async with (
                stdio_client(server(home), errlog=log) as (read, write),
                ClientSession(read, write, read_timeout_seconds=REQUEST_SECONDS) as session,
            ):
                await session.initialize()
                result.append(await body(session))

    anyio.run(main)
    return result[0]


async def call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """A tool call's text and whether it is a tool error (isError)."""
    answer = await session.call_tool(name, args)
    text = "".join(block.text for block in answer.content if block.type == "text")
    assert len(text) <= PAGE_CHARS
    return text, answer.is_error


async def ok(session: ClientSession, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A successful call's structuredContent (the SDK has checked it against the output schema)."""
    answer = await session.call_tool(name, args)
    text = "".join(block.text for block in answer.content if block.type == "text")
    assert not answer.is_error, text
    assert answer.structured_content is not None and json.loads(text) == answer.structured_content
    return answer.structured_content


def test_tools_resources_and_prompts_are_listed_for_agents(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return (
            (await session.list_tools()).tools,
            (await session.list_resource_templates()).resource_templates,
            (await session.list_prompts()).prompts,
            session.server_capabilities,
        )

    tools, templates, prompts, capabilities = run_client(tmp_path / "home", body)
    assert [t.name for t in tools] == [
        "search",
        "read",
        "list_sessions",
        "turn_context",
        "save",
        "forget_message",
        "forget_session",
        "search_error_memory",
        "read_error",
        "remember_error",
        "forget_error",
    ]
    for tool in tools:
        assert tool.title and tool.output_schema and tool.annotations is not None
        assert tool.annotations.open_world_hint is False
    by_name = {t.name: t for t in tools}
    assert by_name["search"].input_schema["required"] == ["query"]
    assert by_name["forget_session"].annotations.destructive_hint is True
    assert by_name["search"].annotations.read_only_hint is True
    assert [t.uri_template for t in templates] == ["memtray://session/{id}"]
    assert {p.name for p in prompts} == {"recall", "catch_up"}
    assert capabilities is not None and capabilities.resources is not None
    assert (tmp_path / "mcp-stderr.log").read_text() == ""  # quiet unless something is wrong


def test_every_tool_over_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(home) as mem:  # an imported conversation from long ago
        mem.import_sessions(
            [
                ImportedSession(
                    "claude-1",
                    [
                        Message("user", "which database did we pick for the ledger?", OLD),
                        Message("assistant", "We picked SQLite with WAL for the ledger.", OLD + NS),
                    ],
                )
            ]
        )

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        pair = [
            {"role": "user", "content": "我們用 tabs 縮排", "sendAt": 1_760_000_000 * NS, "sender": "ann"},
            {"role": "assistant", "content": "noted: tabs", "sendAt": 1_760_000_001 * NS},
        ]
        out["save"] = await ok(session, "save", {"session": "agent-1", "messages": pair})
        out["retry"] = await ok(session, "save", {"session": "agent-1", "messages": pair})
        out["bad"] = await call(
            session, "save", {"session": "agent-1", "messages": [{"role": "tool", "content": "x"}]}
        )
        out["search"] = await ok(session, "search", {"query": "ledger database"})
        out["cjk"] = await ok(session, "search", {"query": "縮排", "match": "keyword"})
        out["none"] = await ok(session, "search", {"query": "zeppelin", "match": "keyword"})
        out["sessions"] = await ok(session, "list_sessions", {})
        hit = out["search"]["hits"][0]
        out["read"] = await ok(session, "read", hit["read"])
        out["context"] = await ok(session, "turn_context", {"session": "agent-1", "request": "indent?"})
        out["remember"] = await ok(
            session,
            "remember_error",
            {
                "tool_name": "fetch_page",
                "keywords": ["timeout"],
                "symptom": "timeout after 30 s",
                "action": "raised the timeout",
                "outcome": "resolved",
            },
        )
        out["errors"] = await ok(session, "search_error_memory", {"query": "fetch_page timeout"})
        error_id = out["remember"]["record"]["id"]
        out["read_error"] = await ok(session, "read_error", {"id": error_id[:12]})
        out["forget_error"] = await ok(session, "forget_error", {"id": error_id})
        first_id = out["save"]["ids"][0]
        out["forget"] = await ok(session, "forget_message", {"session": "agent-1", "message": first_id})
        out["after_forget"] = await ok(session, "read", {"session": "agent-1"})
        out["resources"] = (await session.list_resources()).resources
        resource = await session.read_resource("memtray://session/claude-1")
        out["resource"] = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
        try:
            await session.read_resource("memtray://session/nope")
        except MCPError as exc:
            out["no_resource"] = exc.error.code
        out["prompt"] = await session.get_prompt("recall", {"topic": "the ledger"})
        try:
            await session.get_prompt("recall", {})
        except MCPError as exc:
            out["bad_prompt"] = exc.error.code
        out["drop"] = await ok(session, "forget_session", {"session": "claude-1"})
        out["gone"] = await call(session, "read", {"session": "claude-1"})
        return out

    out = run_client(home, body)
    assert (out["save"]["saved"], out["retry"]["saved"], out["retry"]["alreadyPresent"]) == (2, 0, 2)
    assert out["bad"][1] and "role must be one of user, assistant" in out["bad"][0]
    hit = out["search"]["hits"][0]
    assert hit["session"] == "claude-1" and hit["time"] == "2020-09-13T12:26:40Z"
    assert hit["title"] == "which database did we pick for the ledger?"
    assert [h["snippet"] for h in out["cjk"]["hits"]] == ["我們用 tabs 縮排"]
    assert out["none"]["hits"] == [] and out["none"]["summary"].startswith("No messages match")
    assert [s["id"] for s in out["sessions"]["sessions"]] == ["agent-1", "claude-1"]
    assert [m["text"] for m in out["read"]["messages"]][-1] == "We picked SQLite with WAL for the ledger."
    assert "Prior Conversation Context" in out["context"]["system"]
    assert "sender: ann" in out["context"]["messages"][0]["content"]
    assert out["errors"]["records"][0]["action"] == "raised the timeout"
    assert out["read_error"]["record"]["tool"] == "fetch_page"
    assert [m["text"] for m in out["after_forget"]["messages"]] == ["noted: tabs"]
    assert {str(r.uri) for r in out["resources"]} == {
        "memtray://session/agent-1",
        "memtray://session/claude-1",
    }
    assert out["resource"]["session"] == "claude-1" and len(out["resource"]["messages"]) == 2
    assert out["no_resource"] == -32002 and out["bad_prompt"] == -32602
    assert "the ledger" in out["prompt"].messages[0].content.text
    assert out["drop"]["removedMessages"] == 2 and out["gone"][1]
    assert (tmp_path / "mcp-stderr.log").read_text() == ""
    with Memory.open(home) as mem:  # the same store, seen by another process (the tray app would see it)
        history = mem.history("agent-1")
        assert [(m.role, m.content) for m in history] == [("assistant", "noted: tabs")]
        assert not mem.exists("claude-1") and mem.errors.count() == 0


@pytest.mark.parametrize("sessions", [105])
def test_resources_are_paged(tmp_path: Path, sessions: int) -> None:
    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.import_sessions(
            [
                ImportedSession(f"s{i:03d}", [Message("user", f"hello {i}", OLD + i * NS)])
                for i in range(sessions)
            ]
        )

    async def body(session: ClientSession) -> list[int]:
        sizes, cursor = [], None
        while True:
            page = await session.list_resources(
                params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
            )
            sizes.append(len(page.resources))
            if page.next_cursor is None:
                return sizes
            cursor = page.next_cursor

    sizes = run_client(home, body)
    assert len(sizes) > 1 and sum(sizes) == sessions and max(sizes) <= 100
