"""Query terms and their highlighting in search results (plain Python, no Qt).

The terms follow the engine's keyword search: ``"quoted phrases"`` stay whole, other text splits into
words, and runs of Chinese, Japanese or Korean characters are kept as runs (they match as substrings).
"""

from __future__ import annotations

import html
import re

_PHRASE = re.compile(r'"([^"]+)"')
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\s{_CJK}\"]+")
_PUNCT = ".,;:!?()[]{}<>'`“”‘’，。、；：！？（）「」『』"
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "with",
    ]
)


def terms(query: str) -> list[str]:
    """The terms of ``query`` to highlight, longest first."""
    found: list[str] = [p.strip() for p in _PHRASE.findall(query) if p.strip()]
    rest = _PHRASE.sub(" ", query)
    for token in _TOKEN.findall(rest):
        token = token.strip(_PUNCT)
        if token and token.lower() not in STOP_WORDS:
            found.append(token)
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=len, reverse=True)


def highlight_html(text: str, words: list[str], *, mark: str = "background-color:#ffe066;") -> str:
    """``text`` as HTML with every occurrence of ``words`` (case-insensitive) marked."""
    if not words:
        return html.escape(text)
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
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
