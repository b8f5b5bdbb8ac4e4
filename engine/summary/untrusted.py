"""Gemini's reply is untrusted input: the bounds it must fit and the cleaning of every text kept from it.

A reply (and a summary.json, which holds what replies said) is checked before it is parsed and cleaned
before anything is saved:

- at most :data:`MAX_REPLY_CHARS` characters, and JSON nested at most :data:`MAX_DEPTH` deep (counted by a
  scan without recursion, so no reply can exhaust the parser's stack); over either, the reply is refused;
- entry counts and text lengths are the response schema's own limits (:data:`MAX_ENTRIES`,
  :data:`MAX_DECISION_CHARS`, :data:`MAX_FIELD_CHARS`); longer text is cut, extra entries are dropped;
- every text kept loses lone surrogates (each becomes U+FFFD), control characters other than newline
  and tab, and the invisible characters that reorder or hide text (bidi controls, zero-width space, word
  joiner, BOM); this is done before redaction, so a secret split by such a character is still found;
- every registered secret (the Gemini key in use among them: :func:`engine.logs.register_secret`) and
  every secret :func:`engine.llm.redact.redact` knows is replaced before the text is saved.

What was kept goes back to a model as data: :func:`as_data_json` writes it as JSON in which no text can
start a line, close a fence or open a tag of its own, and :func:`one_line` puts an entry on one line.
"""

from __future__ import annotations

import json
import re

from engine.llm.redact import redact

MAX_REPLY_CHARS = 200_000
"""The longest reply read (a full summary at the limits below is about 90,000 characters)."""
MAX_DEPTH = 16
"""The deepest JSON nesting read (a summary is 3 deep)."""
MAX_ENTRIES = 8
"""At most this many key decisions, and as many past discussions."""
MAX_DECISION_CHARS = 1_000
"""The longest key decision."""
MAX_FIELD_CHARS = 4_000
"""The longest text field of a discussion (topic, description, perspectives, direction, time)."""

# C0 controls but tab and newline, DEL, C1 controls, the bidi marks, embeddings, overrides and isolates,
# and the invisible characters that could split a secret (zero-width space, word joiner, BOM).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON ``text`` opens more than ``limit`` arrays or objects inside each other (brackets
    inside strings are not counted; the scan is a loop, never a recursion)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth = max(0, depth - 1)
    return False


def readable(reply: str | None) -> str | None:
    """The reply when it is within the bounds (size and nesting), else None."""
    if not reply or len(reply) > MAX_REPLY_CHARS or too_deep(reply):
        return None
    return reply


def clean(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """A text from a reply made safe to keep: surrogates replaced, unsafe characters removed, secrets
    redacted, surrounding space stripped, cut to ``limit`` characters."""
    text = redact(_UNSAFE.sub("", _SURROGATE.sub("\ufffd", text))).strip()
    return text[:limit].rstrip() if len(text) > limit else text


_ESCAPED = str.maketrans({c: f"\\u{ord(c):04x}" for c in "`<>\u2028\u2029\x85"})


def as_data_json(value: object, indent: int | None = None) -> str:
    """``value`` as exact JSON (it decodes to the same text) in which backticks, angle brackets and line
    separators inside strings are ``\\uXXXX`` escapes: no stored text can close a fence or a tag around
    it, and (JSON escapes newlines) none can start a line that poses as instructions."""
    # json.dumps escapes quotes, backslashes and C0 controls; the characters left to escape only ever
    # occur inside strings, where an escape decodes to the same character.
    return json.dumps(value, ensure_ascii=False, indent=indent).translate(_ESCAPED)


def one_line(text: str) -> str:
    """An entry of a numbered list in a prompt: its white space (newlines too) folded into single spaces."""
    return " ".join(text.split())
