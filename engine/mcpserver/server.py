"""``memtray mcp``: the memory as a Model Context Protocol server over stdio (the official ``mcp`` SDK).

It uses the SDK's low-level :class:`mcp.server.Server`, so the tools' JSON schemas are the same
declarations the chat loop gives Gemini (:mod:`engine.mcpserver.tools`). Engine calls are blocking: they
run on one worker thread (``anyio.to_thread`` with a limiter of 1), one at a time, so the asyncio loop
keeps reading requests. The store is shared safely with a running tray app and other processes through
the engine's cross-process session locks and SQLite's WAL.

Only the protocol goes to stdout: the SDK's stdio transport points fd 1 at stderr while it serves, and
memtray logs to its log file and stderr. A tool that fails with an :class:`~engine.errors.EngineError`
answers with ``isError`` and one line of text; an unknown tool is a protocol error.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from engine.errors import EngineError
from engine.mcpserver.tools import mcp_tools
from engine.tools.registry import Tool, by_name

if TYPE_CHECKING:
    from engine.memory import Memory

log = logging.getLogger("memtray.mcp")

INSTRUCTIONS = (
    "memtray keeps one person's conversations on their computer. At the start of a turn call "
    "turn_context(session, request) and use what it returns; after the turn, save the user's message "
    "and your final reply with append_messages. Search earlier parts of a conversation with "
    "chat_history, and past tool errors and their fixes with error_history."
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memtray")
    except PackageNotFoundError:
        return "0"


def build_server(mem: Memory, tools: Sequence[Tool] | None = None) -> Server[Any]:
    """An MCP server offering ``tools`` (default: :func:`engine.mcpserver.tools.mcp_tools`) over ``mem``."""
    offered = list(tools) if tools is not None else mcp_tools()
    table = by_name(offered)
    limiter = anyio.CapacityLimiter(1)

    async def on_list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.parameters) for t in offered
            ]
        )

    async def on_call_tool(
        _ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = table.get(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool: {params.name}")
        run = functools.partial(tool.run, mem, None, dict(params.arguments or {}))
        try:
            text = await anyio.to_thread.run_sync(run, limiter=limiter)
        except EngineError as exc:
            log.info("mcp tool %s failed: %s", tool.name, type(exc).__name__)
            return types.CallToolResult(content=[types.TextContent(text=f"error: {exc}")], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server(
        "memtray",
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def serve(mem: Memory) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin."""
    server = build_server(mem)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    log.info("mcp server: serving %s over stdio", mem.paths.home)
    anyio.run(main)
    log.info("mcp server: the client closed the connection")
