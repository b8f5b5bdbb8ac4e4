"""CLI command ``memtray mcp``: serve the memory to agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse

from engine.cli.output import open_memory


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "mcp",
        help="serve the memory to agents over the Model Context Protocol (stdio)",
        description="A Model Context Protocol server on stdin/stdout: tools search, read, list_sessions, "
        "turn_context, save, forget_message, forget_session and the error memory's; the sessions as "
        "resources; prompts recall and catch_up. Logs go to the log file, warnings to stderr.",
    )
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from engine.mcpserver.server import serve

    with open_memory(args) as mem:
        serve(mem)
    return 0
