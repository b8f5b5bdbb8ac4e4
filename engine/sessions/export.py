"""Export a session's complete archive as JSONL (history.json records) or Markdown.

In Markdown each message is a ``## role — time`` heading and its text in a code fence made of more
backticks than any run of backticks in the text (at least three), so no text can end the fence early or
be read as Markdown (a ``---`` line, a ``#`` heading): the text between the fence lines is the message,
exactly.
"""

from __future__ import annotations

import json
import re
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
        fence = fence_for(message.content)
        yield f"\n## {who} — {when}\n\n{fence}\n{message.content}\n{fence}\n"


_BACKTICKS = re.compile(r"`+")


def fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text`` (at least three)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def render(fmt: str, session: str, messages: Iterable[Message]) -> Iterator[str]:
    """The lines of an export in ``fmt`` (``jsonl`` or ``markdown``)."""
    if fmt == "jsonl":
        return jsonl_lines(messages)
    return markdown_lines(session, messages)
