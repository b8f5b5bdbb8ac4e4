"""Reading a summary out of a model's reply, tolerantly.

The reply is requested as JSON with a response schema, but a model may still wrap it. In order: a fenced
block tagged ``json`` or ``summary``, a ``<summary>…</summary>`` element, a ``[summary]…[/summary]`` block
(the first match of each); then the text from the first ``{``, decoded with ``raw_decode`` (trailing text
is ignored). The first candidate that is a JSON object passing :func:`~engine.summary.schema.is_valid` wins.
A reply over the bounds of :func:`engine.summary.untrusted.readable` (its size, its nesting) is not parsed
at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.summary.schema import is_valid
from engine.summary.untrusted import readable

_PATTERNS = [
    re.compile(r"```(?:json|summary)[ \t]*\n(.*?)```", re.S | re.I),
    re.compile(r"<summary>(.*?)</summary>", re.S | re.I),
    re.compile(r"\[summary\](.*?)\[/summary\]", re.S | re.I),
]


def _load_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_reply(reply: str | None) -> dict[str, Any] | None:
    """The summary object in a reply, or None when there is no valid one (or the reply is over the bounds)."""
    reply = readable(reply)
    if not reply:
        return None
    text = reply.strip()
    whole = _load_object(text)
    if whole is not None and is_valid(whole):
        return whole
    for pattern in _PATTERNS:
        found = pattern.search(text)
        if found:
            candidate = _load_object(found.group(1).strip())
            if candidate is not None and is_valid(candidate):
                return candidate
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return value if isinstance(value, dict) and is_valid(value) else None


def parse_json_object(reply: str | None) -> dict[str, Any] | None:
    """Any JSON object in a reply (the decision model's answers): whole text, a fence, or from ``{``; None
    when there is none or the reply is over the bounds."""
    reply = readable(reply)
    if not reply:
        return None
    text = reply.strip()
    whole = _load_object(text)
    if whole is not None:
        return whole
    fenced = _PATTERNS[0].search(text) or re.search(r"```[a-z]*\n(.*?)```", text, re.S)
    if fenced:
        candidate = _load_object(fenced.group(1).strip())
        if candidate is not None:
            return candidate
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
