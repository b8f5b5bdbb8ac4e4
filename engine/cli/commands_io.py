"""CLI commands that move conversations in and out: import, export."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.cli.output import open_memory, write
from engine.errors import InvalidInput, SessionNotFound
from engine.importers import DESCRIPTIONS, readers
from engine.paths import make_private_dir
from engine.sessions import export as exporters
from engine.storage.atomic import atomic_write

PROGRESS_EVERY = 1.0
EXTENSIONS = {"jsonl": ".jsonl", "markdown": ".md"}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    formats = "\n".join(f"  {name:<9} {DESCRIPTIONS.get(name, '')}" for name in sorted(readers()))
    p = commands.add_parser(
        "import",
        help="import conversations from a file or folder",
        description="Import conversations; each one becomes a session. Importing again adds nothing.",
        epilog=f"formats:\n{formats}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("format", choices=sorted(readers()))
    p.add_argument("path", type=Path)
    p.add_argument("--session", default=None, help="the session to import into (only with one conversation)")
    p.set_defaults(handler=cmd_import)

    p = commands.add_parser("export", help="export a session's complete history (or every session's)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--session", help="the session to export")
    which.add_argument("--all", action="store_true", help="every session, one file each into -o DIR")
    p.add_argument("--format", required=True, choices=exporters.FORMATS)
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="write to this file (default: stdout); with --all, the folder to write into",
    )
    p.set_defaults(handler=cmd_export)


class _Progress:
    """Prints ``importing: done/total messages`` to stderr, at most once a second and at the end."""

    def __init__(self) -> None:
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < PROGRESS_EVERY:
            return
        self._last = now
        sys.stderr.write(f"importing: {done:,}/{total:,} messages\n")
        sys.stderr.flush()


def cmd_import(args: argparse.Namespace) -> int:
    reader = readers()[args.format]
    with open_memory(args) as mem:  # first, so that warnings about skipped records are logged
        result = reader(args.path, args.session)  # everything is read and checked before anything is stored
        report = mem.import_sessions(result.sessions, _Progress()).with_skipped(result.skipped)
        mem.wait_idle()
    ordered = sorted(report.skipped.items(), key=lambda item: (-item[1], item[0]))
    skipped = ", ".join(f"{n} {why}" for why, n in ordered) or "none"
    write(
        f"imported {report.messages_added} messages into {report.sessions} session(s); "
        f"{report.messages_already_present} already present; skipped: {skipped}"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if args.all:
        return _export_all(args)
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


def _export_all(args: argparse.Namespace) -> int:
    if args.output is None:
        raise InvalidInput("--all needs -o DIR: the folder to write one file per session into")
    folder = args.output.expanduser()
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(f"{folder} is not a folder")
    written = 0
    with open_memory(args) as mem:
        make_private_dir(folder)
        for info in mem.sessions():
            try:
                data = "".join(exporters.render(args.format, info.id, mem.iter_archive(info.id)))
            except SessionNotFound:
                continue  # removed while exporting
            atomic_write(folder / f"{info.id}{EXTENSIONS[args.format]}", data.encode("utf-8"), mode=0o600)
            written += 1
    write(f"exported {written} session(s) to {folder}")
    return 0
