"""CLI command: config (read or set a setting)."""

from __future__ import annotations

import argparse

from engine import settings as settings_mod
from engine.cli.output import open_memory, write
from engine.errors import InvalidSetting


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("config", help="show or change settings")
    p.add_argument("key", nargs="?")
    p.add_argument("value", nargs="?")
    p.set_defaults(handler=cmd_config)


def cmd_config(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.key is None:
            for name, value in mem.settings.as_dict().items():
                write(f"{name} = {settings_mod.render(value)}")
            return 0
        if args.value is None:
            if args.key not in settings_mod.names():
                raise InvalidSetting(
                    f"unknown setting {args.key!r}; known: {', '.join(settings_mod.names())}"
                )
            write(settings_mod.render(getattr(mem.settings, args.key)))
            return 0
        updated = mem.update_settings(**{args.key: args.value})
        write(f"{args.key} = {settings_mod.render(getattr(updated, args.key))}")
    return 0
