"""``memtray import claude-code|codex --hook``: import the transcript an agent's hook names, never failing it.

Claude Code and Codex run a ``Stop`` hook (Claude Code also ``SessionEnd``) as a shell command with one JSON
object on standard input; both put the session's transcript in ``transcript_path`` (besides ``session_id``,
``cwd``, ``hook_event_name``, ``stop_hook_active`` …). The import is incremental, so each run adds only
the turns written since the last one.

A hook that fails can block the agent (exit 2 does in both), so this always exits 0 and says exactly one
line, whatever happens — bad input, a missing transcript, a home that cannot be used (a file where the folder
should be, a damaged database, a full or read-only disk), even a bug. Nothing else reaches the terminal:
warnings go to the log file only. Claude Code gets the line as plain text (stdout when the import ran,
stderr when it did not); Codex reads a ``Stop`` hook's stdout as JSON, so it gets ``{"continue": true,
"systemMessage": LINE}``. What one run missed, the next imports.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from engine.cli.visible import visible
from engine.errors import EngineError, InvalidInput
from engine.logs import hide_secrets
from engine.storage.diskerrors import storage_error

log = logging.getLogger("memtray.cli")

AGENTS = ("claude-code", "codex")
"""The formats whose agent runs hooks with a ``transcript_path``."""
MAX_PAYLOAD = 1024 * 1024
"""A hook's input is read up to this much (a real one is a few hundred bytes)."""


def run(args: argparse.Namespace, run_import: Callable[[argparse.Namespace], str]) -> int:
    """Import the transcript named on standard input with ``run_import`` (which returns the report's line)
    and say so in one line; always 0."""
    try:
        if args.format not in AGENTS:
            raise InvalidInput(f"--hook goes with 'memtray import {' or '.join(AGENTS)}'")
        args.path = transcript(sys.stdin.read(MAX_PAYLOAD))
        args.hook = False
        args.quiet_log = True  # the log file keeps the warnings; the hook says one line
        line, ok = run_import(args), True
    except EngineError as exc:
        line, ok = f"nothing imported from the hook: {exc}", False
    except OSError as exc:  # the home's disk or shape: said in words
        line, ok = f"nothing imported from the hook: {storage_error(exc, 'its files')}", False
    except Exception as exc:  # a bug: the traceback goes to the log, never to the agent
        if logging.getLogger("memtray").handlers:
            log.exception("internal error in the %s hook", args.format)
        line = f"nothing imported from the hook: internal error ({type(exc).__name__}: {exc}); see the log"
        ok = False
    if not ok and logging.getLogger("memtray").handlers:  # else logging's last resort prints it again
        log.warning("%s hook: %s", args.format, line)  # to the log file only: the console is quiet
    say(args.format, line, ok)
    return 0


def transcript(payload: str) -> Path:
    """The ``transcript_path`` of a hook's JSON input.

    Raises:
        InvalidInput: not a JSON object, or no usable ``transcript_path``.
    """
    try:
        data = json.loads(payload or "null")
    except (ValueError, RecursionError) as exc:
        raise InvalidInput("the hook's input is not JSON") from exc
    path = data.get("transcript_path") if isinstance(data, dict) else None
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        raise InvalidInput("the hook's input has no transcript_path")
    return Path(path)


def say(fmt: str, line: str, ok: bool) -> None:
    """The hook's one line: plain text for Claude Code, a ``Stop`` hook's JSON answer for Codex."""
    text = visible(hide_secrets(f"memtray: {line}")).replace("\n", " ")
    try:
        if fmt == "codex":
            sys.stdout.write(json.dumps({"continue": True, "systemMessage": text}) + "\n")
            sys.stdout.flush()
        else:
            stream = sys.stdout if ok else sys.stderr
            stream.write(text + "\n")
            stream.flush()
    except OSError:
        pass  # the agent closed the pipe: nobody to tell
