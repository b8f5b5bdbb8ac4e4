"""Messages: the plain dataclass that crosses the engine's border, the history.json record shape, and
:class:`MessageFilter`, which messages a search may return.

A record in ``history.json`` is ``{"role", "content", "sendAt"?, "sender"?}`` (Agenvoy's format):
``sendAt`` is Unix nanoseconds and left out when 0; ``sender`` is left out when empty; ``content`` is a
string, though a list of content parts is tolerated on read.

Stored text comes back exactly as it was written: :func:`from_record` never rewrites a record's content,
whatever its first line looks like (a message may well start with ``sendAt: …`` or ``sender: …``; models
echo the window's prefix line). Older formats with the time in a header inside the content are converted
once, when they are imported (:func:`normalize_legacy`, called by the Agenvoy importer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.clock import format_local, parse_local
from engine.errors import InvalidMessage

ROLES = ("user", "assistant")
MAX_SENDER = 256
MAX_CONTENT_CHARS = 1_000_000
"""The longest message memtray stores, in characters, whichever way it comes in (the CLI, MCP, the chat,
every importer): a longer one is refused in words (an importer skips and counts it). A million characters
is a long book chapter pasted whole, yet at most a quarter of a 4 MiB history.json."""
# Year 2200 in Unix ns: anything later is a unit mistake (seconds or milliseconds are far smaller).
MAX_SEND_AT = 7_258_118_400 * 1_000_000_000


@dataclass(frozen=True)
class Message:
    """One message of a conversation.

    Attributes:
        role: ``"user"`` or ``"assistant"``.
        content: the text, without any time or sender prefix.
        send_at: Unix nanoseconds (UTC); 0 when unknown.
        sender: the display name of who wrote it, or ``""``.
        id: the message's row id in the archive, once stored; ``None`` before.
        session: the session id, when the message came out of a store.
    """

    role: str
    content: str
    send_at: int = 0
    sender: str = ""
    id: int | None = None
    session: str | None = None

    def with_id(self, message_id: int, session: str) -> Message:
        return replace(self, id=message_id, session=session)


@dataclass(frozen=True)
class MessageFilter:
    """Which messages a search may return (every message by default). Searches apply it before they rank,
    so a filtered search finds matches that an unfiltered one ranks below its limit.

    Attributes:
        role: only messages of this role; None: both.
        sender: only messages of this sender, in any case (compared casefolded); None: anyone's.
        since: only messages sent at or after this (Unix ns); 0: no lower bound.
        until: only messages sent at or before this (Unix ns), so never one of unknown time (0); None: no
            upper bound.
    """

    role: str | None = None
    sender: str | None = None
    since: int = 0
    until: int | None = None

    @property
    def narrows(self) -> bool:
        """Whether it leaves some message out."""
        return self.role is not None or self.sender is not None or self.since > 0 or self.until is not None

    def without_people(self) -> MessageFilter:
        """The same bounds in time, for any role and sender."""
        return MessageFilter(since=self.since, until=self.until)

    def at_least_since(self, since: int) -> MessageFilter:
        """This filter with its lower time bound raised to ``since`` (if that is later)."""
        return replace(self, since=max(self.since, since))

    def sender_matches(self, sender: str) -> bool:
        return self.sender is None or sender.casefold() == self.sender.casefold()

    def time_matches(self, send_at: int) -> bool:
        if send_at < self.since:
            return False
        return self.until is None or 0 < send_at <= self.until

    def admits(self, message: Message) -> bool:
        if self.role is not None and message.role != self.role:
            return False
        return self.sender_matches(message.sender) and self.time_matches(message.send_at)


EVERY_MESSAGE = MessageFilter()


def validate(message: Message) -> Message:
    """Check a message before it is stored.

    Raises:
        InvalidMessage: for a role other than user/assistant, non-text content or content over
            :data:`MAX_CONTENT_CHARS`, a negative or far-future ``send_at``, or a sender that is not a
            short string.
    """
    if message.role not in ROLES:
        raise InvalidMessage(f"role must be 'user' or 'assistant', not {message.role!r}")
    if not isinstance(message.content, str):
        raise InvalidMessage("content must be text")
    if len(message.content) > MAX_CONTENT_CHARS:
        raise InvalidMessage(
            f"the message has {len(message.content):,} characters; "
            f"a message may have at most {MAX_CONTENT_CHARS:,}"
        )
    if "\x00" in message.content:
        raise InvalidMessage("content must not contain NUL characters")
    if not isinstance(message.send_at, int) or isinstance(message.send_at, bool):
        raise InvalidMessage("sendAt must be an integer of Unix nanoseconds")
    if message.send_at < 0 or message.send_at > MAX_SEND_AT:
        raise InvalidMessage(f"sendAt {message.send_at} is not a Unix time in nanoseconds")
    if not isinstance(message.sender, str) or len(message.sender) > MAX_SENDER or "\x00" in message.sender:
        raise InvalidMessage(f"sender must be text of at most {MAX_SENDER} characters")
    try:
        message.content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidMessage("content is not valid Unicode text (lone surrogate)") from exc
    return message


def text_of(content: Any) -> str:
    """The text of a record's content: a string as is; for a list, the text parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def to_record(message: Message) -> dict[str, Any]:
    """The history.json record for a message."""
    record: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.send_at:
        record["sendAt"] = message.send_at
    if message.sender:
        record["sender"] = message.sender
    return record


def from_record(record: Any) -> Message | None:
    """A message from a history.json record, or ``None`` if the record is not a usable message.

    The content is the record's text exactly (a list of content parts is joined, see :func:`text_of`).
    """
    if not isinstance(record, Mapping):
        return None
    role = record.get("role")
    if role not in ROLES:
        return None
    send_at = record.get("sendAt", 0)
    if not isinstance(send_at, int) or isinstance(send_at, bool) or send_at < 0:
        send_at = 0
    sender = record.get("sender", "")
    return Message(
        role=str(role),
        content=text_of(record.get("content")),
        send_at=send_at,
        sender=sender if isinstance(sender, str) else "",
    )


def prefix_line(message: Message) -> str:
    """The window's prefix line: ``sendAt: YYYY-MM-DD HH:MM:SS[, sender: NAME]`` (local time)."""
    line = f"sendAt: {format_local(message.send_at)}" if message.send_at else "sendAt: unknown"
    if message.sender:
        line += f", sender: {message.sender}"
    return line


def with_prefix(message: Message) -> str:
    """The content as the LLM sees it in the window: the prefix line, a newline, the content."""
    return f"{prefix_line(message)}\n{message.content}"


def own_text(sender: str, content: str) -> str:
    """A message as the vectors and the context index read it: ``sender: content``, or the content alone
    when it has no sender."""
    return f"{sender}: {content}" if sender else content


# The older Agenvoy format: the time sits in a header at the start of the content.
_LEGACY_KEYS = r"當前時間|工作目錄|傳送者|當前 chat ID|當前 channel"
_LEGACY_HEADER = re.compile(rf"^[ \t]*({_LEGACY_KEYS})[ \t]*[:：][ \t]*(.*?)[ \t\r]*$")
_PREFIX_LINE = re.compile(r"^[ \t]*(sendAt|sender|channelId):[ \t]*(.*?)[ \t\r]*$")
_LEGACY_START = re.compile(rf"\s*(---|(?:{_LEGACY_KEYS})[ \t]*[:：]|(?:sendAt|sender|channelId):)")
_HEADER_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?")
_PREFIX_SENDER = re.compile(r",\s*sender:\s*(.+)$")
MAX_HEADER_LINES = 12


def normalize_legacy(message: Message) -> Message:
    """Convert a record in the older format, whose time sits in a header inside the content.

    For importers only (a file written by another program): memtray's own records are never converted,
    so a message that starts like a header keeps it.

    Only a header at the very start of the content is taken, in any order and repeated:

    - a block of legacy header lines between two ``---`` lines (``當前時間: 2024-05-01 12:34:56``,
      ``工作目錄: …``, ``傳送者: …``, ``當前 chat ID: …``, ``當前 channel: …``; ``:`` or ``：``);
    - such header lines without the dashes;
    - the window's prefix line, ``sendAt: <local time>[, sender: NAME]``, and ``sender:`` /
      ``channelId:`` lines.

    The header is removed. ``當前時間`` (or the prefix's time), read as local time, becomes ``send_at``
    when the record has none; ``傳送者`` (or the prefix's sender) becomes ``sender`` when it has none. A
    ``---`` block with anything but header lines in it is the message's own text and is kept.
    """
    content = message.content
    if not _LEGACY_START.match(content):
        return message
    lines = content.split("\n")
    pos = _skip_blank(lines, 0)
    headers: dict[str, str] = {}
    while True:
        start = pos
        pos = _skip_blank(lines, _take_block(lines, pos, headers))
        while pos < len(lines) and (
            found := _LEGACY_HEADER.match(lines[pos]) or _PREFIX_LINE.match(lines[pos])
        ):
            headers.setdefault(found.group(1), found.group(2))
            pos = _skip_blank(lines, pos + 1)
        if pos == start:
            break
    if not headers:
        return message
    send_at, sender = message.send_at, message.sender
    if not send_at:
        send_at = _header_time(headers.get("當前時間")) or _header_time(headers.get("sendAt"))
    if not sender:
        from_prefix = _PREFIX_SENDER.search(headers.get("sendAt", ""))
        named = (
            headers.get("傳送者") or headers.get("sender") or (from_prefix.group(1) if from_prefix else "")
        )
        sender = named.strip()[:MAX_SENDER]
    rest = "\n".join(lines[pos:]).strip("\n")
    return replace(message, content=rest, send_at=send_at, sender=sender)


def _skip_blank(lines: list[str], pos: int) -> int:
    while pos < len(lines) and not lines[pos].strip():
        pos += 1
    return pos


def _take_block(lines: list[str], pos: int, headers: dict[str, str]) -> int:
    """Past a ``---`` block of legacy header lines at ``pos`` (its headers into ``headers``), or ``pos``."""
    if pos >= len(lines) or lines[pos].strip() != "---":
        return pos
    found: list[tuple[str, str]] = []
    for end in range(pos + 1, min(len(lines), pos + 2 + MAX_HEADER_LINES)):
        line = lines[end]
        if line.strip() == "---":
            if not found:
                return pos
            for key, value in found:
                headers.setdefault(key, value)
            return end + 1
        if not line.strip():
            continue
        header = _LEGACY_HEADER.match(line)
        if header is None:
            return pos
        found.append((header.group(1), header.group(2)))
    return pos


def _header_time(value: str | None) -> int:
    """Unix ns of the local time in a header value, or 0."""
    found = _HEADER_TIME.search(value or "")
    if found is None:
        return 0
    try:
        send_at = parse_local(found.group(0))
    except (ValueError, OverflowError, OSError):
        return 0
    return send_at if 0 <= send_at <= MAX_SEND_AT else 0
