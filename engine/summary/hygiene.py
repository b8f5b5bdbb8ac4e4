"""Output hygiene: what is removed from a model's reply before it is shown or saved.

1. ``<summary>…</summary>`` and ``[summary]…[/summary]`` blocks are removed.
2. The reply is cut at the first leak marker (the summary's or the guidance's own words), keeping what
   comes before it (without a ``{`` that opened the leaked object).
3. A leading dashed header block (``---`` … ``---``) is removed.
"""

from __future__ import annotations

import re

LEAK_MARKERS = (
    "Prior Conversation Context",
    "Prior summary",
    "background summary of prior discussion",
    "Strict rules:",
    '"key_decisions": [',
    '"current_discussion": {',
)
_BLOCKS = [
    re.compile(r"<summary>.*?</summary>", re.S | re.I),
    re.compile(r"\[summary\].*?\[/summary\]", re.S | re.I),
]
_MARKERS = re.compile("|".join(re.escape(m) for m in LEAK_MARKERS), re.I)
_HEADER = re.compile(r"\A\s*-{3,}[ \t]*\n.*?\n-{3,}[ \t]*(\n|\Z)", re.S)


def strip_reply(text: str) -> str:
    """A model reply with summary blocks, leaked context and a leading dashed header removed."""
    for block in _BLOCKS:
        text = block.sub("", text)
    found = _MARKERS.search(text)
    if found:
        text = text[: found.start()].rstrip().removesuffix("{")  # a JSON object's opening brace too
    text = _HEADER.sub("", text, count=1)
    return text.strip()
