"""Local-time formatting for the viewer (messages carry Unix nanoseconds, UTC)."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication


def local_time(ns: int) -> str:
    """``YYYY-MM-DD HH:MM`` in local time, or ``unknown time`` for 0."""
    if not ns:
        return QCoreApplication.translate("Time", "unknown time")
    return datetime.fromtimestamp(ns / 1e9).astimezone().strftime("%Y-%m-%d %H:%M")
