"""JSONL import: one history.json record per line, ``{"role", "content", "sendAt"?, "sender"?}``.

Blank lines are ignored. The first bad line stops the import before anything is stored, and the error
names it (line number and why).
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import ImportFormatError, InvalidInput
from engine.importers import ImportedSession, ReadResult
from engine.messages import Message, text_of, validate
from engine.paths import validate_session_id

MAX_LINE_BYTES = 64 * 1024 * 1024


def session_from_path(path: Path) -> str:
    """A session id from a file name (``chat-2024.jsonl`` -> ``chat-2024``)."""
    try:
        return validate_session_id(path.stem)
    except InvalidInput as exc:
        raise InvalidInput(f"cannot use the file name {path.name!r} as a session id; pass --session") from exc


def parse_record(record: object, line: int) -> Message:
    """A message from one parsed JSONL record; ImportFormatError names the line otherwise."""
    if not isinstance(record, dict):
        raise ImportFormatError(f"line {line}: expected a JSON object", line)
    content = record.get("content")
    if isinstance(content, list):
        content = text_of(content)
    if not isinstance(content, str):
        raise ImportFormatError(f"line {line}: 'content' must be text", line)
    send_at = record.get("sendAt", 0)
    sender = record.get("sender", "")
    try:
        return validate(Message(role=record.get("role"), content=content, send_at=send_at, sender=sender))  # type: ignore[arg-type]
    except InvalidInput as exc:
        raise ImportFormatError(f"line {line}: {exc}", line) from exc


def read(path: Path, session: str | None = None) -> ReadResult:
    """Read a JSONL file into one session (``session``, or the file's name).

    Raises:
        ImportFormatError: a line that is not a valid record (nothing is imported).
        InvalidInput: the file cannot be read.
    """
    target = validate_session_id(session) if session else session_from_path(path)
    messages: list[Message] = []
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if len(raw) > MAX_LINE_BYTES:
                    raise ImportFormatError(f"line {number}: longer than {MAX_LINE_BYTES} bytes", number)
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, ValueError) as exc:
                    raise ImportFormatError(f"line {number}: not valid JSON ({exc})", number) from exc
                except RecursionError as exc:
                    raise ImportFormatError(f"line {number}: JSON nested too deeply", number) from exc
                messages.append(parse_record(record, number))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc
    return ReadResult([ImportedSession(target, messages)])
