"""The tools ``memtray mcp`` offers, as plain functions over :class:`engine.Memory` (no MCP types here).

- ``chat_history`` (when this build has it) and ``error_history``: the memory's LLM tools of
  :mod:`engine.tools.registry`; a tool that works on a conversation gets a required ``session`` argument.
- ``append_messages(session, messages)``: append ``[{role, content, sendAt?, sender?}]`` to a session
  (created if new); a message without ``sendAt`` gets the time of the call. Answers
  ``{"session", "appended", "ids"}``.
- ``turn_context(session, request?)``: what an LLM call gets from the memory this turn (the window with
  prefixes, the turn-context message, the system-prompt guidance), as in ``memtray context --json``.
- ``list_sessions(include_temp?)``: the sessions, most recently active first, as in ``memtray sessions --json``.

Every runner takes ``(mem, session, args)`` and returns text; bad arguments raise
:class:`~engine.errors.InvalidInput` (the server reports them as a tool error).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.chat.prompt import context_for
from engine.errors import InvalidInput
from engine.messages import Message
from engine.tools.registry import Tool, memory_tools

if TYPE_CHECKING:
    from engine.memory import Memory

MAX_MESSAGES = 1000

_SESSION: dict[str, Any] = {
    "type": "string",
    "description": "The session (conversation) id: letters, digits, '.', '_' or '-'.",
}

APPEND_MESSAGES: dict[str, Any] = {
    "name": "append_messages",
    "description": (
        "Save messages of a conversation to memtray's memory (history, full-text and meaning search, "
        "summaries). Save the user's message and your final reply after each turn; never tool calls. "
        "The session is created if it does not exist."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "session": _SESSION,
            "messages": {
                "type": "array",
                "description": f"The new messages, oldest first (at most {MAX_MESSAGES}).",
                "items": {
                    "type": "object",
                    "properties": {
                        "role": {"type": "string", "enum": ["user", "assistant"]},
                        "content": {"type": "string"},
                        "sendAt": {"type": "integer", "description": "Unix time in nanoseconds (UTC)."},
                        "sender": {"type": "string", "description": "The display name of the author."},
                    },
                    "required": ["role", "content"],
                },
            },
        },
        "required": ["session", "messages"],
    },
}
TURN_CONTEXT: dict[str, Any] = {
    "name": "turn_context",
    "description": (
        "What to give the model this turn from memtray's memory: the latest messages of the session "
        "(each with a sendAt line), a turn-context message with the relevant prior summary, and "
        "guidance for the system prompt. Returns JSON {session, request, system, messages, summary}."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "session": _SESSION,
            "request": {"type": "string", "description": "The user's request this turn (for relevance)."},
        },
        "required": ["session"],
    },
}
LIST_SESSIONS: dict[str, Any] = {
    "name": "list_sessions",
    "description": "The sessions in memtray's memory, most recently active first, as a JSON list.",
    "parameters": {
        "type": "object",
        "properties": {
            "include_temp": {"type": "boolean", "description": "Include temporary (temp-) sessions."}
        },
    },
}


def _text(args: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidInput(f"{name} must be {'non-empty ' if required else ''}text")
    return value


def _message(raw: Any, index: int, now: int) -> Message:
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"messages[{index}] must be an object")
    send_at = raw.get("sendAt")
    if send_at is None or send_at == 0:
        send_at = now + index  # one call's messages keep their order
    elif isinstance(send_at, bool) or not isinstance(send_at, int):
        raise InvalidInput(f"messages[{index}].sendAt must be an integer of Unix nanoseconds")
    sender = raw.get("sender") or ""
    return Message(raw.get("role"), raw.get("content"), send_at, sender)  # type: ignore[arg-type]


def append_messages(mem: Memory, _session: str | None, args: Mapping[str, Any]) -> str:
    session = _text(args, "session")
    raw = args.get("messages")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("messages must be a non-empty list")
    if len(raw) > MAX_MESSAGES:
        raise InvalidInput(f"at most {MAX_MESSAGES} messages per call")
    now = mem.clock()
    stored = mem.append(session, [_message(m, i, now) for i, m in enumerate(raw)])
    return json.dumps({"session": session, "appended": len(stored), "ids": [m.id for m in stored]})


def turn_context(mem: Memory, _session: str | None, args: Mapping[str, Any]) -> str:
    session = _text(args, "session")
    request = _text(args, "request", required=False)
    return json.dumps(context_for(mem, session, request).to_json(), ensure_ascii=False)


def list_sessions(mem: Memory, _session: str | None, args: Mapping[str, Any]) -> str:
    include_temp = args.get("include_temp", False)
    if not isinstance(include_temp, bool):
        raise InvalidInput("include_temp must be true or false")
    return json.dumps(
        [
            {
                "id": i.id,
                "lastActivity": i.last_activity,
                "hotMessages": i.hot_messages,
                "archivedMessages": i.archived_messages,
                "summaryUpdated": i.summary_updated,
                "temporary": i.temporary,
            }
            for i in mem.sessions(include_temp=include_temp)
        ]
    )


def with_session(tool: Tool) -> Tool:
    """A conversation tool for MCP: ``session`` becomes a required argument."""
    parameters = tool.parameters
    properties = {"session": _SESSION, **parameters.get("properties", {})}
    required = ["session", *[r for r in parameters.get("required", []) if r != "session"]]
    declaration = {
        **tool.declaration,
        "parameters": {**parameters, "properties": properties, "required": required},
    }

    def run(mem: Memory, _session: str | None, args: Mapping[str, Any]) -> str:
        session = _text(args, "session")
        return tool.run(mem, session, {k: v for k, v in args.items() if k != "session"})

    return Tool(declaration, run)


def mcp_tools() -> list[Tool]:
    """Every tool of ``memtray mcp``, in the order ``tools/list`` shows them."""
    memory = [with_session(t) if t.needs_session else t for t in memory_tools()]
    own = [
        Tool(APPEND_MESSAGES, append_messages),
        Tool(TURN_CONTEXT, turn_context),
        Tool(LIST_SESSIONS, list_sessions),
    ]
    return memory + own
