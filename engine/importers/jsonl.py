"""JSONL import: one history.json record per line, ``{"role", "content", "sendAt"?, "sender"?}``.

The path ``-`` reads standard input (then ``--session`` names the session). Blank lines are ignored and a
UTF-8 byte order mark is accepted. ``sendAt`` may be given in seconds, milliseconds, microseconds or
nanoseconds: the unit is told by its size and the time stored in nanoseconds. A line whose time cannot be
real (negative, before 1990, after 2200) is skipped and counted with that reason. Any other bad line stops
the import before anything is stored, and the error names it (line number and why).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from engine.errors import ImportFormatError, InvalidInput
from engine.imported import ImportedSession, ReadResult
from engine.importers import detect
from engine.importers.records import BadTime, Tally, epoch_ns
from engine.messages import Message, text_of, validate
from engine.paths import validate_session_id

MAX_LINE_BYTES = 64 * 1024 * 1024
STDIN = "-"


def session_from_path(path: Path) -> str:
    """A session id from a file name (``chat-2024.jsonl`` -> ``chat-2024``)."""
    try:
        return validate_session_id(path.stem)
    except InvalidInput as exc:
        raise InvalidInput(f"cannot use the file name {path.name!r} as a session id; pass --session") from exc


def parse_record(record: object, line: int) -> Message:
    """A message from one parsed JSONL record; ImportFormatError names the line otherwise.

    Raises:
        BadTime: the record's ``sendAt`` cannot be a real time (the caller skips the line).
        ImportFormatError: anything else wrong with it.
    """
    if not isinstance(record, dict):
        raise ImportFormatError(f"line {line}: expected a JSON object", line)
    content = record.get("content")
    if isinstance(content, list):
        content = text_of(content)
    if not isinstance(content, str):
        raise ImportFormatError(f"line {line}: 'content' must be text", line)
    raw_time = record.get("sendAt", 0)
    if raw_time is not None and (isinstance(raw_time, bool) or not isinstance(raw_time, int | float)):
        raise ImportFormatError(
            f"line {line}: sendAt must be a number (Unix time), not {raw_time!r}"[:200], line
        )
    send_at = epoch_ns(raw_time)
    sender = record.get("sender", "")
    try:
        return validate(Message(role=record.get("role"), content=content, send_at=send_at, sender=sender))  # type: ignore[arg-type]
    except InvalidInput as exc:
        raise ImportFormatError(f"line {line}: {exc}", line) from exc


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read a JSONL file (``-``: standard input) into one session (``session``, or the file's name).

    Raises:
        ImportFormatError: a line that is not a valid record (nothing is imported), or a file of another
            kind (a Claude Code transcript, a ChatGPT export …).
        InvalidInput: the file cannot be read, or standard input without ``session``.
    """
    if str(path) == STDIN:
        if not session:
            raise InvalidInput("reading from standard input needs --session ID: the session to import into")
        return read_lines(sys.stdin.buffer, validate_session_id(session), "standard input")
    target = validate_session_id(session) if session else session_from_path(path)
    detect.require(path, "jsonl")
    try:
        with path.open("rb") as handle:
            return read_lines(handle, target, str(path))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc


def _bounded_lines(handle: IO[bytes] | Iterable[bytes]) -> Iterator[bytes]:
    """The lines of ``handle``, none read past ``MAX_LINE_BYTES + 1`` bytes (``/dev/zero`` has no newline).

    A longer line comes out cut at that length, so the caller refuses it without holding it whole.
    """
    readline = getattr(handle, "readline", None)
    if readline is None:
        yield from handle
        return
    while True:
        line = readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        yield line
        if len(line) > MAX_LINE_BYTES:
            return


def read_lines(handle: IO[bytes] | Iterable[bytes], session: str, source: str) -> ReadResult:
    """Read JSONL records from ``handle`` into ``session`` (``source`` names it in errors).

    Raises:
        ImportFormatError: a line that is not a valid record, or lines of another kind.
    """
    messages: list[Message] = []
    tally = Tally()
    first: list[object] = []
    for number, raw in enumerate(_bounded_lines(handle), start=1):
        if len(raw) > MAX_LINE_BYTES:
            raise ImportFormatError(f"line {number}: longer than {MAX_LINE_BYTES} bytes", number)
        if number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ImportFormatError(f"line {number}: not valid JSON ({exc})", number) from exc
        except RecursionError as exc:
            raise ImportFormatError(f"line {number}: JSON nested too deeply", number) from exc
        if len(first) < detect.SAMPLE_LINES:
            first.append(record)
            if len(first) == 1:
                detect.check(detect.of_lines(first), "jsonl", source)
        try:
            messages.append(parse_record(record, number))
        except BadTime as exc:
            shown = str(record.get("sendAt"))[:40] if isinstance(record, dict) else ""
            tally.broken(str(exc), f"line {number}", f"sendAt {shown}")
        except ImportFormatError:
            detect.check(detect.of_lines(first), "jsonl", source)  # lines of another kind: say which
            raise
    return ReadResult([ImportedSession(session, messages)], tally.as_dict())
