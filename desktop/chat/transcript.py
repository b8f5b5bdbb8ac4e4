"""The chat transcript as one Markdown document (shown with ``QTextDocument.setMarkdown``).

Replies are Markdown already; the user's messages are shown as quotes, so that what they typed is set off
from the answers and a stray ``#`` or ``---`` in it cannot restyle the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

YOU = "You"
ASSISTANT = "Gemini"


@dataclass(frozen=True)
class Entry:
    """One message in the window.

    Attributes:
        role: ``user`` or ``assistant``.
        text: the text (a reply still streaming is partial).
        saved: whether it is in the memory (False while its turn runs).
    """

    role: str
    text: str
    saved: bool = True


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines() or [""])


def markdown(entries: Sequence[Entry], you: str = YOU) -> str:
    """The transcript's Markdown: a heading line per message (``you`` names the user), the user's text quoted."""
    blocks = []
    for entry in entries:
        if entry.role == "user":
            blocks.append(f"**{you}**\n\n{_quoted(entry.text)}")
        else:
            blocks.append(f"**{ASSISTANT}**\n\n{entry.text or '…'}")
    return "\n\n".join(blocks) + "\n"
