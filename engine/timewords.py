"""Date bounds of searches and listings (MCP ``since``/``until``, the CLI's ``--since``/``--until``) as
Unix nanoseconds: ``YYYY-MM-DD`` (the whole day, in UTC), an ISO date-time (UTC unless it carries an
offset), or a time in words ("last week", "3 days ago", "上個月", "vorige week") in the user's time zone.

The words are read by ``dateparser`` (English, Chinese and Dutch, the languages of the histories memtray
keeps), relative to a given now and preferring the past. It costs 0.1-0.3 s to import and up to 0.5 s for
its first phrase, so it is imported only when a time in words is given: a command with an ISO date, or
none, never loads it (``bench.cli_start``).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

from engine.clock import NS_PER_SECOND
from engine.errors import InvalidInput

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

LANGUAGES = ["en", "zh-Hant", "zh", "nl"]
MAX_CHARS = 40


def parse_words(name: str, value: str, *, now_ns: int) -> int:
    """The moment ``value`` names, as Unix nanoseconds, read in the local time zone relative to ``now_ns``.

    Raises:
        InvalidInput: the text names no time (or is longer than :data:`MAX_CHARS`).
    """
    text = value.strip()
    moment = None
    if text and len(text) <= MAX_CHARS:
        import dateparser  # only when a time in words is given (its import is slow)

        now = datetime.fromtimestamp(now_ns / NS_PER_SECOND).astimezone()
        moment = dateparser.parse(
            text,
            languages=LANGUAGES,
            settings={"RELATIVE_BASE": now.replace(tzinfo=None), "PREFER_DATES_FROM": "past"},
        )
    if moment is None:
        raise InvalidInput(
            f"{name} {value[:MAX_CHARS]!r} is not a date: use YYYY-MM-DD, an ISO date-time such as "
            "2025-01-31T18:00:00Z, or words such as 'last week' or '3 days ago'"
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.fromtimestamp(now_ns / NS_PER_SECOND).astimezone().tzinfo)
    return int(moment.timestamp() * 1_000_000) * 1000


def parse_bound(name: str, value: str, *, end: bool, now_ns: int | None = None) -> int:
    """A date bound as Unix nanoseconds; a bare date is its first (or, for an ``end``, last) instant. Any
    other text is read as a time in words relative to ``now_ns`` (default: now), in the user's time zone
    (:mod:`engine.timewords`: "last week", "3 days ago", "上個月").

    Raises:
        InvalidInput: the text is not a real date, date-time or time in words.
    """
    if not re.match(DATE_PATTERN, value):
        return parse_words(name, value, now_ns=time.time_ns() if now_ns is None else now_ns)
    try:
        if _DATE_ONLY.match(value):
            day = datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
            moment = day + timedelta(days=1) if end else day
            ns = int(moment.timestamp()) * NS_PER_SECOND
            return ns - 1 if end else ns
        moment = datetime.fromisoformat(value.replace(" ", "T", 1))
    except (ValueError, OverflowError):
        raise InvalidInput(
            f"{name} {value[:40]!r} is not a date: use YYYY-MM-DD or an ISO date-time such as "
            "2025-01-31T18:00:00Z"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000
