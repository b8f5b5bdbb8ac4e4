"""Session titles: an imported or user-given title, else the session's first user message, shortened."""

from __future__ import annotations

import re

MAX_TITLE = 200
"""A stored title is cut to this many characters."""
SHORT_TITLE = 60
"""A title made from a message keeps about this many characters."""

IMPORTED = "imported"
USER = "user"

_SPACE = re.compile(r"\s+")


def shorten(text: str, limit: int = SHORT_TITLE) -> str:
    """A one-line title from a message: its first non-empty line, white space folded, cut near ``limit``.

    A cut ends at a word boundary where the line has spaces near the limit (English), else at the limit
    (Chinese has no spaces), and is marked with an ellipsis.
    """
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = _SPACE.sub(" ", line).strip()
    if len(line) <= limit:
        return line
    cut = line[:limit]
    space = cut.rfind(" ")
    if space >= limit * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,.;:，。、；：") + "…"


def clean(title: str) -> str:
    """A title as stored: one line, white space folded, at most :data:`MAX_TITLE` characters."""
    return _SPACE.sub(" ", title).strip()[:MAX_TITLE]
