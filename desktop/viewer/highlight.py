"""Query terms and their highlighting in search results (plain Python, no Qt).

The terms are the engine's own (:func:`engine.query_terms`): what keyword search looks for, with its stop
words and its CJK runs, so the viewer marks what the search matched. A term of the Latin alphabet or
digits is marked only as a whole word, or with an inflection the word index folds into it (``s``,
``es``, ``ed``, ``ing``, ``'s``): "low" marks "low" and "lows", not the start of "lower"; "e" marks the
"e" of "e-mail", not every "e" of the text. A CJK term is marked anywhere.
"""

from __future__ import annotations

import html
import re

from engine import query_terms


def terms(query: str) -> list[str]:
    """The terms of ``query`` to highlight, longest first (so a longer term wins where two overlap)."""
    return sorted(query_terms(query), key=len, reverse=True)


INFLECTIONS = r"(?:'s|s|es|ed|ing)?"


def _piece(word: str) -> str:
    """The regular expression marking ``word``: a whole word (with an inflection) when it is of ASCII
    letters or digits, anywhere otherwise."""
    first = word[:1]
    if not (first.isascii() and first.isalnum()):
        return re.escape(word)
    return rf"(?<![^\W_]){re.escape(word)}{INFLECTIONS}(?![^\W_])"


def highlight_html(text: str, words: list[str], *, mark: str = "background-color:#ffe066;") -> str:
    """``text`` as HTML with every occurrence of ``words`` (case-insensitive) marked."""
    if not words:
        return html.escape(text)
    pattern = re.compile("|".join(_piece(w) for w in words), re.IGNORECASE)
    parts: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        parts.append(html.escape(text[last : m.start()]))
        parts.append(f'<span style="{mark}font-weight:bold;">{html.escape(m.group(0))}</span>')
        last = m.end()
    parts.append(html.escape(text[last:]))
    return "".join(parts)


def excerpt(text: str, words: list[str], width: int = 240) -> str:
    """A window of ``text`` around its first matching word, at most ``width`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lowered = flat.lower()
    hits = [lowered.find(w.lower()) for w in words]
    first = min((h for h in hits if h >= 0), default=0)
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
