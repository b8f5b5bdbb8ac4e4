"""CLI commands that move conversations in and out: import, export.

``memtray import FORMAT PATH`` reads everything first (the reader checks the whole file), then stores it;
on a terminal a progress line on stderr is rewritten in place (quiet when stderr is not a terminal), and at
the end one line on stdout says how many messages went into how many sessions and what was left out, and
why. The transcript formats (``claude-code``, ``codex``) remember how far each file was read in
``<home>/.store/import-state.json``, written only once the messages are stored.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import TextIO

from engine.cli.output import open_memory, write
from engine.cli.visible import visible
from engine.errors import InvalidInput, SessionNotFound
from engine.importers import readers
from engine.importers.formats import DESCRIPTIONS, INCREMENTAL
from engine.paths import make_private_dir
from engine.sessions import export as exporters
from engine.storage.atomic import atomic_write

log = logging.getLogger("memtray.cli")

PROGRESS_EVERY = 0.2
EXTENSIONS = {"jsonl": ".jsonl", "markdown": ".md"}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    formats = "\n".join(f"  {name:<12} {DESCRIPTIONS[name]}" for name in sorted(DESCRIPTIONS))
    p = commands.add_parser(
        "import",
        help="import conversations from a file or folder",
        description="Import conversations; each one becomes a session. Importing again adds nothing.",
        epilog=f"formats:\n{formats}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("format", choices=sorted(DESCRIPTIONS))
    p.add_argument(
        "path", type=Path, nargs="?", help="the file or folder to import ('-': standard input, jsonl only)"
    )
    p.add_argument("--session", default=None, help="the session to import into (only with one conversation)")
    p.add_argument(
        "--hook",
        action="store_true",
        help="claude-code and codex: read the agent's Stop hook JSON on standard input and import its "
        "transcript_path (PATH is then left out); always exits 0 with one line",
    )
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


class Progress:
    """``importing: 1,234/5,000 messages (24 %)`` on stderr, rewritten in place, only on a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._on = _is_terminal(self._stream)
        self._last = 0.0
        self._shown = False

    def note(self, text: str) -> None:
        """Show ``text`` as the progress line (e.g. ``reading …``)."""
        if self._on:
            self._show(text)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self._on or (done < total and now - self._last < PROGRESS_EVERY):
            return
        self._last = now
        share = f" ({done * 100 // total} %)" if total else ""
        self._show(f"importing: {done:,}/{total:,} messages{share}")

    def _show(self, text: str) -> None:
        self._stream.write(f"\r{visible(text)}\x1b[K")  # a file's name may hold escapes too
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        """Clear the progress line, so that what follows starts on a clean line."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def cmd_import(args: argparse.Namespace) -> int:
    if args.hook:
        from engine.cli import hook

        return hook.run(args, run_import)
    write(run_import(args))
    return 0


def run_import(args: argparse.Namespace) -> str:
    """Import ``args.path`` as ``args.format``; the report in words (one line)."""
    if args.path is None:
        raise InvalidInput("name the file or folder to import")
    progress = Progress()
    with open_memory(args) as mem:  # first, so that warnings about skipped records are logged
        try:
            progress.note(f"reading {args.path} …")
            if args.format in INCREMENTAL:
                from engine.importers.watch import import_transcripts

                report = import_transcripts(mem, args.format, args.path, args.session, progress)
            else:
                result = readers()[args.format](args.path, args.session)  # all read and checked first
                report = mem.import_sessions(result.sessions, progress).with_read(result)
            mem.wait_idle()
        finally:
            progress.close()
    return report.describe()


def cmd_export(args: argparse.Namespace) -> int:
    if args.all:
        return _export_all(args)
    with open_memory(args) as mem:
        lines = exporters.render(args.format, args.session, mem.iter_archive(args.session))
        if args.output is None:  # the exact text, unless a terminal would act on it
            shown = visible if sys.stdout.isatty() else str
            for line in lines:
                sys.stdout.write(shown(line))
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
