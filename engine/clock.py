"""Time: the injectable clock and the few time formats the memory uses.

Times are integers of Unix nanoseconds (UTC, as history.json's ``sendAt`` holds them). Shown times are local.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], int]
"""A function returning the current time in Unix nanoseconds."""

NS_PER_SECOND = 1_000_000_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DAY_NS = 24 * 3600 * NS_PER_SECOND
# The time ranges of a search (``1m`` is 30 days, ``1y`` 365), as the original's tools take them.
TIME_RANGES: dict[str, int] = {"1d": DAY_NS, "7d": 7 * DAY_NS, "1m": 30 * DAY_NS, "1y": 365 * DAY_NS}


def system_clock() -> int:
    """The real clock."""
    return time.time_ns()


def local_datetime(ns: int) -> datetime:
    """A timezone-aware local datetime for Unix nanoseconds.

    Windows' C library has no local time before 1970 (``fromtimestamp(-1)`` is ``OSError: [Errno 22]``):
    such a time is shown with today's offset from UTC instead.
    """
    moment = EPOCH + timedelta(microseconds=ns / 1000)
    try:
        return moment.astimezone()
    except (OSError, OverflowError):
        return moment.astimezone(datetime.now().astimezone().tzinfo)


def format_local(ns: int) -> str:
    """``YYYY-MM-DD HH:MM:SS`` in local time (the prefix line and the summary cursor format)."""
    return local_datetime(ns).strftime("%Y-%m-%d %H:%M:%S")


def format_rfc3339(ns: int) -> str:
    """RFC 3339 in local time with offset, e.g. ``2025-01-02T15:04:05+08:00``."""
    return local_datetime(ns).isoformat(timespec="seconds")


def parse_local(text: str) -> int:
    """Parse ``YYYY-MM-DD HH:MM:SS`` (or ``YYYY-MM-DD HH:MM``) as local time, to Unix nanoseconds.

    Raises:
        ValueError: if the text is not in one of those formats.
    """
    text = text.strip()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return int(parsed.astimezone().timestamp()) * NS_PER_SECOND
    raise ValueError(f"not a local time: {text!r}")
