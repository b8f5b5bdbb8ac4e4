"""How a session is named where people see it: its title (imported, the user's or its first message),
else its id; shortened for menus."""

from __future__ import annotations

from engine import SessionInfo

MENU_CHARS = 48
"""A menu entry's title is cut to this many characters (the id and the whole title are its tooltip)."""


def title_of(info: SessionInfo | None, session: str = "") -> str:
    """The session's title, or its id when it has none."""
    if info is None:
        return session
    return info.title.strip() or info.id


def short_title(info: SessionInfo, limit: int = MENU_CHARS) -> str:
    """:func:`title_of`, cut with an ellipsis past ``limit`` characters."""
    title = title_of(info)
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
