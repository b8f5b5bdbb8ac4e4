"""The MCP server's tools as plain functions (the stdio round trip is in tests/e2e/test_mcp.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from engine import Memory
from engine.errors import InvalidInput, InvalidMessage
from engine.mcpserver import tools
from engine.tools.registry import Tool
from tests.engine.conftest import FakeClock


def test_append_messages_defaults_send_at_to_now_in_order(memory: Memory, clock: FakeClock) -> None:
    answer = tools.append_messages(
        memory,
        None,
        {
            "session": "a",
            "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "r"}],
        },
    )
    assert json.loads(answer)["appended"] == 2
    first, second = memory.history("a")
    assert first.send_at == clock.now < second.send_at


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"session": "a", "messages": []}, InvalidInput),
        ({"session": "", "messages": [{"role": "user", "content": "x"}]}, InvalidInput),
        ({"session": "a", "messages": ["text"]}, InvalidInput),
        ({"session": "a", "messages": [{"role": "user", "content": "x", "sendAt": "soon"}]}, InvalidInput),
        ({"session": "a", "messages": [{"role": "system", "content": "x"}]}, InvalidMessage),
        ({"session": "a", "messages": [{"role": "user", "content": 3}]}, InvalidMessage),
    ],
)
def test_append_messages_refuses_bad_input_and_writes_nothing(
    memory: Memory, args: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        tools.append_messages(memory, None, args)
    assert not memory.exists("a")


def test_a_conversation_tool_gets_a_required_session_argument(memory: Memory) -> None:
    seen: list[tuple[str | None, Mapping[str, Any]]] = []

    def run(_mem: Memory, session: str | None, args: Mapping[str, Any]) -> str:
        seen.append((session, args))
        return "ok"

    declaration = {"name": "t", "description": "d", "parameters": {"type": "object", "required": ["keyword"]}}
    wrapped = tools.with_session(Tool(declaration, run, needs_session=True))
    assert wrapped.parameters["required"] == ["session", "keyword"]
    assert "session" in wrapped.parameters["properties"]
    assert wrapped.run(memory, None, {"session": "s1", "keyword": "k"}) == "ok"
    assert seen == [("s1", {"keyword": "k"})]
    with pytest.raises(InvalidInput):
        wrapped.run(memory, None, {"keyword": "k"})


def test_mcp_tools_have_unique_names_and_object_schemas() -> None:
    names = [t.name for t in tools.mcp_tools()]
    assert len(names) == len(set(names))
    assert {"error_history", "append_messages", "turn_context", "list_sessions"} <= set(names)
    assert all(t.parameters["type"] == "object" for t in tools.mcp_tools())
