"""The tools the memory offers to an LLM, in one registry shared by the chat loop and the MCP server.

A :class:`Tool` is a declaration — ``{"name", "description", "parameters"}`` with a JSON-schema object,
usable as a Gemini function declaration and, with ``parameters`` as ``inputSchema``, as an MCP tool — and
a runner ``(mem, session, args) -> text``. A runner signals a failed call by raising (an
:class:`~engine.errors.EngineError` for a known failure); the chat loop then adds the error-memory hint
(related records of that tool, :mod:`engine.errormemory.hint`).

:func:`memory_tools` lists them: ``chat_history`` (the conversation memory) and ``error_history``. Adding a
tool is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.tools import chat_history, error_history

if TYPE_CHECKING:
    from engine.memory import Memory

Runner = Callable[["Memory", str | None, Mapping[str, Any]], str]


@dataclass(frozen=True)
class Tool:
    """One tool: its declaration and how to run it.

    Attributes:
        declaration: ``{"name", "description", "parameters"}`` (JSON schema).
        run: ``(mem, session, args) -> text for the model``; raises when the call failed.
        needs_session: whether it works on the conversation's session (the chat loop passes its own;
            the MCP server adds a ``session`` argument).
    """

    declaration: Mapping[str, Any]
    run: Runner
    needs_session: bool = False

    @property
    def name(self) -> str:
        return str(self.declaration["name"])

    @property
    def description(self) -> str:
        return str(self.declaration.get("description", ""))

    @property
    def parameters(self) -> dict[str, Any]:
        return dict(self.declaration.get("parameters") or {"type": "object", "properties": {}})


def _error_history(mem: Memory, _session: str | None, args: Mapping[str, Any]) -> str:
    return error_history.execute(mem.errors, "error_history", args)


ERROR_HISTORY = Tool(error_history.ERROR_HISTORY, _error_history)


CHAT_HISTORY = Tool(chat_history.DECLARATION, chat_history.execute, needs_session=True)


def memory_tools() -> list[Tool]:
    """The memory's tools: ``chat_history``, then ``error_history``."""
    return [CHAT_HISTORY, ERROR_HISTORY]


def by_name(tools: Sequence[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}
