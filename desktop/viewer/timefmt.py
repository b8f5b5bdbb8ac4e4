"""Local-time formatting for the viewer (messages carry Unix nanoseconds, UTC)."""

from __future__ import annotations

from datetime import datetime


def local_time(ns: int) -> str:
    """``YYYY-MM-DD HH:MM`` in local time, or ``unknown time`` for 0."""
    if not ns:
        return "unknown time"
    return datetime.fromtimestamp(ns / 1e9).astimezone().strftime("%Y-%m-%d %H:%M")
