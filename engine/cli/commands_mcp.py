"""CLI command ``memtray mcp``: serve the memory to agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse

from engine.cli.output import open_memory


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "mcp",
        help="serve the memory to agents over the Model Context Protocol (stdio)",
        description="A Model Context Protocol server on stdin/stdout: tools chat_history, error_history, "
        "append_messages, turn_context and list_sessions. Logs go to the log file and stderr.",
    )
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from engine.mcpserver.server import serve

    with open_memory(args) as mem:
        serve(mem)
    return 0
