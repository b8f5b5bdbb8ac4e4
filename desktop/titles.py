"""How a session is named where people see it: its title (imported, the user's or its first message),
else its id; shortened for menus, and elided in the middle in messages and headings (the full title is
their tooltip), so conversations whose titles share a start or an end still look different."""

from __future__ import annotations

from engine import SessionInfo

MENU_CHARS = 48
"""A menu entry's title is cut to this many characters (the id and the whole title are its tooltip)."""
NAME_CHARS = 60
"""A title in a message or a heading is elided in the middle past this many characters."""


def title_of(info: SessionInfo | None, session: str = "") -> str:
    """The session's title, or its id when it has none."""
    if info is None:
        return session
    return info.title.strip() or info.id


def short_title(info: SessionInfo, limit: int = MENU_CHARS) -> str:
    """:func:`title_of`, cut with an ellipsis past ``limit`` characters."""
    title = title_of(info)
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


def elide_middle(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` with its middle replaced by ``…`` past ``limit`` characters (its start and end kept)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) - (limit - 1) // 2
    tail = (limit - 1) // 2
    return text[:head].rstrip() + "…" + (text[-tail:].lstrip() if tail else "")


def name_of(info: SessionInfo | None, session: str = "") -> str:
    """The session as a message or heading names it: :func:`title_of`, elided in the middle."""
    return elide_middle(title_of(info, session))


def tooltip_of(info: SessionInfo | None, session: str = "") -> str:
    """The whole title and, when it differs, the id under it."""
    title = title_of(info, session)
    sid = info.id if info is not None else session
    return title if title == sid else f"{title}\n{sid}"
