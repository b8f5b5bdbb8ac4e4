"""Export a session's complete archive as JSONL (history.json records) or Markdown."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from engine.clock import format_local
from engine.messages import Message, to_record

FORMATS = ("jsonl", "markdown")


def jsonl_lines(messages: Iterable[Message]) -> Iterator[str]:
    for message in messages:
        yield json.dumps(to_record(message), ensure_ascii=False) + "\n"


def markdown_lines(session: str, messages: Iterable[Message]) -> Iterator[str]:
    yield f"# {session}\n"
    for message in messages:
        when = format_local(message.send_at) if message.send_at else "unknown time"
        who = f"{message.role} · {message.sender}" if message.sender else message.role
        yield f"\n## {who} — {when}\n\n{message.content}\n"


def render(fmt: str, session: str, messages: Iterable[Message]) -> Iterator[str]:
    """The lines of an export in ``fmt`` (``jsonl`` or ``markdown``)."""
    if fmt == "jsonl":
        return jsonl_lines(messages)
    return markdown_lines(session, messages)
