"""``memtray mcp`` in a subprocess, driven by the ``mcp`` SDK's own stdio client."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from engine import Memory

ROOT = Path(__file__).resolve().parents[2]


def server(home: Path) -> StdioServerParameters:
    script = Path(sys.executable).with_name("memtray")
    command, args = (str(script), []) if script.exists() else (sys.executable, ["-m", "desktop.launcher"])
    return StdioServerParameters(command=command, args=[*args, "--home", str(home), "mcp"], cwd=ROOT)


def run_client(home: Path, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Start ``memtray mcp`` for ``home``, run ``body`` in an initialized session, return its result."""
    result: list[Any] = []

    async def main() -> None:
        with open(home.parent / "mcp-stderr.log", "w") as log:
            async with (
                stdio_client(server(home), errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result.append(await body(session))

    anyio.run(main)
    return result[0]


async def call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[str, bool]:
    answer = await session.call_tool(name, args)
    text = "".join(block.text for block in answer.content if block.type == "text")
    return text, answer.is_error


def test_tools_are_listed_and_a_bad_call_is_a_tool_error(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> Any:
        listed = (await session.list_tools()).tools
        return listed, await call(session, "turn_context", {"session": "../etc"})

    listed, (text, failed) = run_client(tmp_path / "home", body)
    assert failed and "invalid session id" in text  # answered in the protocol; stdout stayed clean
    tools = {t.name: t for t in listed}
    assert {"error_history", "append_messages", "turn_context", "list_sessions"} <= set(tools)
    assert tools["append_messages"].input_schema["required"] == ["session", "messages"]
    assert "session" in tools["chat_history"].input_schema["required"]


def test_append_list_context_and_error_memory_over_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Memory.open(home).close()

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["append"] = await call(
            session,
            "append_messages",
            {
                "session": "agent-1",
                "messages": [
                    {
                        "role": "user",
                        "content": "我們用 tabs 縮排",
                        "sendAt": 1_760_000_000_000_000_000,
                        "sender": "ann",
                    },
                    {"role": "assistant", "content": "noted: tabs"},
                ],
            },
        )
        out["bad"] = await call(
            session, "append_messages", {"session": "agent-1", "messages": [{"role": "tool", "content": "x"}]}
        )
        out["sessions"] = await call(session, "list_sessions", {})
        out["context"] = await call(session, "turn_context", {"session": "agent-1", "request": "indent?"})
        out["new_context"] = await call(session, "turn_context", {"session": "agent-new"})
        out["write"] = await call(
            session,
            "error_history",
            {
                "mode": "write",
                "tool_name": "fetch_page",
                "keywords": ["timeout"],
                "symptom": "timeout after 30 s",
                "action": "raised the timeout",
                "outcome": "resolved",
            },
        )
        out["search"] = await call(
            session, "error_history", {"mode": "search", "keyword": "fetch_page timeout"}
        )
        out["history"] = await call(
            session,
            "chat_history",
            {"session": "agent-1", "mode": "search", "keyword": "tabs", "match": "keyword"},
        )
        return out

    out = run_client(home, body)
    appended, failed = out["append"]
    assert not failed and json.loads(appended)["appended"] == 2
    assert out["bad"][1] and "role" in out["bad"][0]
    sessions = json.loads(out["sessions"][0])
    assert [s["id"] for s in sessions] == ["agent-1"] and sessions[0]["hotMessages"] == 2
    context = json.loads(out["context"][0])
    assert "Prior Conversation Context" in context["system"]
    assert context["messages"][0]["content"].endswith("我們用 tabs 縮排")
    assert "sender: ann" in context["messages"][0]["content"]
    assert context["messages"][-1]["content"].startswith("Turn context")
    assert json.loads(out["new_context"][0])["messages"][0]["content"].startswith("Turn context")
    assert out["write"] == ("recorded", False)
    assert "raised the timeout" in out["search"][0]
    text, failed = out["history"]
    assert not failed and "[recent]" in text and "noted: tabs" in text
    # The same store, read by another process (the tray app would see it too).
    with Memory.open(home) as mem:
        history = mem.history("agent-1")
        assert [(m.role, m.content, m.sender) for m in history] == [
            ("user", "我們用 tabs 縮排", "ann"),
            ("assistant", "noted: tabs", ""),
        ]
        assert history[0].send_at == 1_760_000_000_000_000_000 and history[1].send_at > 0
        assert mem.errors.search("timeout", tool_name="fetch_page")
