"""Shared pieces of the CLI commands: opening the memory, writing output, showing messages.

Everything written goes through :mod:`engine.cli.visible`: human output shows the control characters and
escape sequences of stored text instead of sending them to the terminal; ``--json`` keeps the exact text.
"""

from __future__ import annotations

import argparse
import io
import logging
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.cli.visible import json_text, visible
from engine.clock import format_local
from engine.logs import configure
from engine.messages import Message
from engine.paths import Paths
from engine.search.snippets import SNIPPET_CHARS, snippet

if TYPE_CHECKING:
    from engine.llm.keys import Keys
    from engine.memory import Memory
    from engine.search.hits import Hit

BACKGROUND_COMMANDS = {"daemon", "mcp"}


def utf8_streams() -> None:
    """Standard input, output and error in UTF-8, whatever the locale's code page.

    On Windows a pipe or a file gets the ANSI code page (cp1252 on an English system), which cannot
    hold Chinese text: ``memtray search 烏龍 > hits.txt`` would fail, and ``--content -`` would misread
    the text. A console already is UTF-8 (and so is every stream on Linux and macOS with a UTF-8 locale).
    """
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.encoding.replace("-", "").lower() != "utf8":
            stream.reconfigure(encoding="utf-8", errors=stream.errors)


def open_memory(args: argparse.Namespace, keys: Keys | None = None) -> Memory:
    """Open the memory named by ``--home`` (or the default), with logging set up.

    ``keys``: the Gemini key store (default: ``GEMINI_API_KEY``, then the OS keyring).
    """
    paths = Paths.resolve(getattr(args, "home", None))
    level = logging.INFO if getattr(args, "verbose", False) else logging.WARNING
    configure(paths.logs_dir, console_level=None if getattr(args, "quiet_log", False) else level)
    # Only long-running commands embed; the others queue their messages for the app/daemon (a search
    # ranks what is embedded and loads the model only for its query).
    background = getattr(args, "command_name", None) in BACKGROUND_COMMANDS
    from engine.memory import Memory  # here, not at the top: `memtray --help` never loads the engine

    return Memory.open(paths.home, keys=keys, background=background)


def write(text: str) -> None:
    """One or more lines of human output (stored text in it is shown safely)."""
    text = visible(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def write_error(text: str) -> None:
    """A line on stderr (stored text in it is shown safely)."""
    sys.stderr.write(visible(text).rstrip("\n") + "\n")


def write_json(value: Any) -> None:
    """``--json`` output: the exact text, with nothing a terminal acts on."""
    sys.stdout.write(json_text(value) + "\n")


def message_line(message: Message) -> str:
    """``[2025-01-02 15:04:05 · user · Alice] text`` (id first when archived)."""
    when = format_local(message.send_at) if message.send_at else "unknown time"
    who = f"{message.role} · {message.sender}" if message.sender else message.role
    ident = f"#{message.id} " if message.id is not None else ""
    return f"{ident}[{when} · {who}] {message.content}"


def hit_line(hit: Hit, terms: list[str]) -> str:
    """A search hit as one line: session, source, score and the message (:func:`message_line`). A message
    longer than :data:`~engine.search.snippets.SNIPPET_CHARS` shows its snippet around the query's
    ``terms`` and its length instead of all of it (``--json`` has all of it)."""
    message = hit.message
    if len(message.content) > SNIPPET_CHARS:
        shown, _ = snippet(message.content, terms)
        message = replace(message, content=f"{shown} [{len(message.content):,} characters]")
    return f"{message.session}\t{hit.source}\t{hit.score:.3f}\t{message_line(message)}"


def message_json(message: Message) -> dict[str, Any]:
    return {
        "session": message.session,
        "id": message.id,
        "role": message.role,
        "content": message.content,
        "sendAt": message.send_at,
        "sender": message.sender,
    }


def hit_json(hit: Hit) -> dict[str, Any]:
    """A hit as ``--json`` shows it; ``passage`` (``{"start", "end"}``: characters of ``content``) when a
    long message was found by meaning in one of its passages."""
    found = {
        **message_json(hit.message),
        "score": round(hit.score, 6),
        "source": hit.source,
        "kind": hit.kind,
    }
    if hit.passage is not None:
        found["passage"] = {"start": hit.passage[0], "end": hit.passage[1]}
    return found


PASSAGE_SHOWN = 240
"""Characters of a matched passage shown under a hit's line."""


def passage_line(hit: Hit) -> str | None:
    """``  ↳ characters 2,104-4,310 matched: …text…`` for a hit found in one passage of a long message."""
    if hit.passage is None:
        return None
    start, end = hit.passage
    text = " ".join(hit.message.content[start:end].split())
    shown = text if len(text) <= PASSAGE_SHOWN else text[: PASSAGE_SHOWN - 1] + "…"
    return f"  ↳ characters {start:,}-{end:,} matched: {'…' if start > 0 else ''}{shown}"
