"""CLI commands that move conversations in and out: import, export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import exporters
from engine.atomic import atomic_write
from engine.cli.output import open_memory, write
from engine.importers import readers


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("import", help="import conversations from a file or folder")
    p.add_argument("format", choices=sorted(readers()))
    p.add_argument("path", type=Path)
    p.add_argument(
        "--session", default=None, help="the session to import into (formats with one conversation)"
    )
    p.set_defaults(handler=cmd_import)

    p = commands.add_parser("export", help="export a session's complete history")
    p.add_argument("--session", required=True)
    p.add_argument("--format", required=True, choices=exporters.FORMATS)
    p.add_argument("-o", "--output", type=Path, default=None, help="write to this file (default: stdout)")
    p.set_defaults(handler=cmd_export)


def cmd_import(args: argparse.Namespace) -> int:
    reader = readers()[args.format]
    with open_memory(args) as mem:
        imported = reader(args.path, args.session)
        report = mem.import_sessions(imported)
        mem.wait_idle()
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(report.skipped.items())) or "none"
    write(
        f"imported {report.messages_added} messages into {report.sessions} session(s); "
        f"{report.messages_already_present} already present; skipped: {skipped}"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        lines = exporters.render(args.format, args.session, mem.iter_archive(args.session))
        if args.output is None:
            for line in lines:
                sys.stdout.write(line)
            return 0
        data = "".join(lines).encode("utf-8")
    target = args.output.expanduser()
    atomic_write(target, data, mode=0o600)
    write(f"exported {args.session} to {target}")
    return 0
