"""The headers Agenvoy wrote at the start of message text over its versions: removed, their time and sender kept.

Agenvoy put the time (and for chat bots the sender, channel, working folder …) into the content itself
before it stored them as fields. Every layout it used is recognised, only at the very start of the text,
and the same layouts repeated (a header on a header) are all removed:

- a ``---`` block whose every line is ``key: value`` with a known key, one of them the time (``當前時間``, ``工作目錄``,
  ``傳送者``, ``當前頻道 ID``, ``當前 chat ID``, ``當前 channel``, ``來源``, ``備註``), e.g.
  ``---\\n當前時間: 2026-04-04 19:10:00\\n傳送者: alice\\n當前頻道 ID: 42\\n---\\n`` (CLI, Discord,
  Telegram and LINE headers, and assistant replies);
- the same ``key: value`` lines without the opening ``---``, optionally closed by one (the early Discord
  layout ``當前時間: …\\n當前頻道 ID: …\\n---\\n``), including the first layout with a full-width colon and an
  explicit offset, ``當前時間：2026-02-24T21:15:03 CST (UTC+08:00)``;
- ``ts:<Unix seconds>`` on a line of its own;
- the prefix line of the structured era, ``sendAt: 2026-08-12 10:00:00, sender: alice`` (and ``sender:`` /
  ``channelId:`` lines), which survives in the first text part of image messages.

Times: a ``(UTC+08:00)`` offset is authoritative; ``YYYY-MM-DD HH:MM[:SS]`` without one is local time (as
Agenvoy wrote it); ``ts:`` is seconds. Lines without a ``當前時間`` line among them, and a ``---`` block
holding anything else (Markdown front matter, ``來源: …`` written by the user), are the message's own text
and are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from engine.clock import parse_local
from engine.messages import MAX_SENDER

KEYS = ("當前時間", "工作目錄", "傳送者", "當前頻道 ID", "當前 chat ID", "當前 channel", "來源", "備註")
_KEY = "|".join(re.escape(k) for k in KEYS)
_LINE = rf"[ \t]*(?:{_KEY})[ \t]*[:：][^\r\n]*(?:\r?\n|\Z)"
_DASHES = r"[ \t]*-{3,}[ \t]*(?:\r?\n|\Z)"
_BLOCK = re.compile(rf"\s*-{{3,}}[ \t]*\r?\n((?:{_LINE})+){_DASHES}")
_LINES = re.compile(rf"\s*((?:{_LINE})+)(?:{_DASHES})?")
_TS = re.compile(r"\s*ts:[ \t]*(\d{9,11})[ \t]*(?:\r?\n|\Z)")
_PREFIX = re.compile(r"\s*((?:[ \t]*(?:sendAt|sender|channelId)[ \t]*:[^\r\n]*(?:\r?\n|\Z))+)")
_FIELD = re.compile(rf"^[ \t]*({_KEY}|sendAt|sender|channelId)[ \t]*[:：][ \t]*(.*?)[ \t\r]*$", re.MULTILINE)
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:[^\n(]*\(UTC([+-])(\d{2}):(\d{2})\))?")
_PREFIX_SENDER = re.compile(r",\s*sender:\s*(.+)$")
_TIME_KEY = KEYS[0]
MAX_HEADERS = 4
"""Headers taken from one text (a header on a header); the rest is text."""


@dataclass(frozen=True)
class Stripped:
    """A text without its headers.

    Attributes:
        text: what follows the headers (the text unchanged when it has none).
        send_at: Unix ns from a header's time, 0 if none.
        sender: the header's sender (``傳送者``, ``sender``), or "".
        found: whether any header was removed.
    """

    text: str
    send_at: int = 0
    sender: str = ""
    found: bool = False


def strip(text: str) -> Stripped:
    """``text`` without the Agenvoy headers at its start, with their time and sender."""
    if not text or text.lstrip()[:1] not in ("-", "當", "工", "傳", "來", "備", "t", "s", "c"):
        return Stripped(text)
    fields: dict[str, str] = {}
    rest = text
    for _ in range(MAX_HEADERS):
        block = _BLOCK.match(rest) or _LINES.match(rest)
        if block is not None and _TIME_KEY in block.group(1):
            _collect(block.group(1), fields)
            rest = rest[block.end() :]
            continue
        ts = _TS.match(rest)
        if ts is not None:
            fields.setdefault("ts", ts.group(1))
            rest = rest[ts.end() :]
            continue
        prefix = _PREFIX.match(rest)
        if prefix is not None:
            _collect(prefix.group(1), fields)
            rest = rest[prefix.end() :]
            continue
        break
    if rest is text:
        return Stripped(text)
    send_at = header_time(fields.get("當前時間", "")) or header_time(fields.get("sendAt", ""))
    if not send_at and "ts" in fields:
        send_at = int(fields["ts"]) * 1_000_000_000
    from_prefix = _PREFIX_SENDER.search(fields.get("sendAt", ""))
    sender = fields.get("傳送者") or fields.get("sender") or (from_prefix.group(1) if from_prefix else "")
    return Stripped(rest.lstrip("\r\n"), send_at, sender.strip()[:MAX_SENDER], True)


def _collect(lines: str, fields: dict[str, str]) -> None:
    for found in _FIELD.finditer(lines):
        fields.setdefault(found.group(1), found.group(2))


def header_time(value: str) -> int:
    """Unix ns of the time in a header value (with its ``(UTC±hh:mm)`` offset, else local), or 0."""
    found = _TIME.search(value)
    if found is None:
        return 0
    day, clock, sign, hours, minutes = found.groups()
    try:
        if sign is None:
            return parse_local(f"{day} {clock}")
        offset = timedelta(hours=int(hours), minutes=int(minutes)) * (1 if sign == "+" else -1)
        layout = "%Y-%m-%d %H:%M:%S" if clock.count(":") == 2 else "%Y-%m-%d %H:%M"
        moment = datetime.strptime(f"{day} {clock}", layout).replace(tzinfo=timezone(offset))
    except (ValueError, OverflowError, OSError):
        return 0
    return int(moment.timestamp()) * 1_000_000_000
