"""The argument parser: global options and one sub-parser per command module."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.cli import (
    commands_config,
    commands_errors,
    commands_forget,
    commands_io,
    commands_mcp,
    commands_repair,
    commands_search,
    commands_sessions,
    commands_summary,
    commands_sync,
)

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

# Each module adds its commands; later parts of memtray add their module here.
COMMAND_MODULES: list[Register] = [
    commands_sessions.register,
    commands_forget.register,
    commands_io.register,
    commands_search.register,
    commands_config.register,
    commands_summary.register,
    commands_errors.register,
    commands_repair.register,
    commands_mcp.register,
    commands_sync.register,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memtray",
        description="A memory for your LLM conversations, kept on this computer. "
        "With no command, memtray starts the tray app.",
    )
    parser.add_argument(
        "--home", metavar="DIR", help="the data folder (default: MEMTRAY_HOME or the platform's)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log more on stderr")
    parser.add_argument(
        "--quit", action="store_true", help="ask the tray app running for this data folder to quit"
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command_name")
    for register in COMMAND_MODULES:
        register(commands)
    return parser


def wants_gui(argv: list[str]) -> bool:
    """True when no command is given (only global options), so the tray app should start.

    ``--quit`` (ask the running tray app to quit) and ``--search`` (open its quick search) are the tray
    app's own options, so they go there too.
    """
    rest = list(argv)
    while rest:
        head = rest.pop(0)
        if head == "--home":
            if rest:
                rest.pop(0)
            continue
        if head.startswith("--home=") or head in ("-v", "--verbose", "--quit", "--search"):
            continue
        return False
    return True
