"""What of a reply that is still streaming may be shown (output hygiene while it streams).

The saved reply is :func:`engine.summary.hygiene.strip_reply` of the whole text. While it streams, the
text so far is cleaned the same way, and also: an unclosed ``<summary>``/``[summary]`` block is hidden
from its start, a leading dashed header that is still open is not shown yet, and a tail that could be
the beginning of a leak marker (``Prior summ…``) waits for the next chunk. So nothing that the final
hygiene removes is ever on screen, even for a moment.
"""

from __future__ import annotations

import re

from engine.summary.hygiene import LEAK_MARKERS, strip_reply

_BLOCKS = (("<summary>", "</summary>"), ("[summary]", "[/summary]"))
_WATCHED = tuple(m.lower() for m in LEAK_MARKERS) + tuple(opener for opener, _ in _BLOCKS)
_OPEN_HEADER = re.compile(r"\A\s*-{3,}[ \t]*(\n|\Z)")
_CLOSED_HEADER = re.compile(r"\A\s*-{3,}[ \t]*\n.*?\n-{3,}[ \t]*(\n|\Z)", re.S)


def _held_tail(lowered: str) -> int:
    """The length of the longest tail of ``lowered`` that starts one of the watched strings."""
    longest = 0
    for word in _WATCHED:
        for size in range(min(len(word) - 1, len(lowered)), longest, -1):
            if word.startswith(lowered[-size:]):
                longest = size
                break
    return longest


def visible_reply(partial: str) -> str:
    """The part of a streaming reply that may be shown now."""
    lowered = partial.lower()
    for opener, closer in _BLOCKS:
        start = lowered.rfind(opener)
        if start != -1 and lowered.find(closer, start) == -1:
            partial, lowered = partial[:start], lowered[:start]
    if _OPEN_HEADER.match(partial) and not _CLOSED_HEADER.match(partial):
        return ""
    held = _held_tail(lowered)
    if held:
        partial = partial[:-held]
    return strip_reply(partial)
