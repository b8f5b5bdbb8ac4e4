"""The tools ``memtray mcp`` offers, in the order ``tools/list`` shows them (no MCP types here).

- finding and reading: ``search``, ``read``, ``list_sessions`` (:mod:`engine.mcpserver.conversations`);
- keeping this conversation: ``turn_context``, ``save``; deleting: ``forget_message``,
  ``forget_session`` (:mod:`engine.mcpserver.writes`);
- the error memory: ``search_error_memory``, ``read_error``, ``remember_error``, ``forget_error``
  (:mod:`engine.mcpserver.errortools`).

The chat window's own tools (``chat_history``, ``error_history`` in :mod:`engine.tools`) keep the built-in
chat loop's semantics and are not offered here.
"""

from __future__ import annotations

from engine.mcpserver.conversations import LIST_SESSIONS, READ, SEARCH
from engine.mcpserver.errortools import FORGET_ERROR, READ_ERROR, REMEMBER_ERROR, SEARCH_ERRORS
from engine.mcpserver.spec import ToolSpec
from engine.mcpserver.writes import FORGET_MESSAGE, FORGET_SESSION, SAVE, TURN_CONTEXT


def mcp_tools() -> list[ToolSpec]:
    """Every tool of ``memtray mcp``."""
    return [
        SEARCH,
        READ,
        LIST_SESSIONS,
        TURN_CONTEXT,
        SAVE,
        FORGET_MESSAGE,
        FORGET_SESSION,
        SEARCH_ERRORS,
        READ_ERROR,
        REMEMBER_ERROR,
        FORGET_ERROR,
    ]
