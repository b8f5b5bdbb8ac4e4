"""Query terms and their highlighting in search results (plain Python, no Qt).

The terms are the engine's own (:func:`engine.query_terms`): what keyword search looks for, with its stop
words and its CJK runs, so the viewer marks what the search matched. A term of the Latin alphabet or
digits is marked only as a whole word, or with an inflection the word index folds into it (``s``,
``es``, ``ed``, ``ing``, ``'s``): "low" marks "low" and "lows", not the start of "lower"; "e" marks the
"e" of "e-mail", not every "e" of the text. A CJK term is marked anywhere. The terms are folded for
search, so they are looked for in the text folded the same way (:func:`engine.fold_spans`), and what is
marked is the text as stored: "ＡＰＩ" for the term "api", "pass\u200bword" for "password".

A long message found by meaning in one of its passages (:attr:`engine.Hit.passage`) shows that passage,
marked as a whole, its words marked again inside (:func:`hit_html`), not the message's start.
"""

from __future__ import annotations

import html
import re

from engine import fold_spans, query_terms


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
    """``text`` as HTML with every occurrence of ``words`` (in any case, in any spelling search folds
    alike) marked."""
    if not words:
        return html.escape(text)
    folded, spans = fold_spans(text)
    pattern = re.compile("|".join(_piece(fold_spans(w)[0]) for w in words if w), re.IGNORECASE)
    parts: list[str] = []
    last = 0
    for m in pattern.finditer(folded):
        if m.end() == m.start():
            continue
        start, end = spans[m.start()][0], spans[m.end() - 1][1]
        if start < last:
            continue
        parts.append(html.escape(text[last:start]))
        parts.append(f'<span style="{mark}font-weight:bold;">{html.escape(text[start:end])}</span>')
        last = end
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


def hit_html(
    content: str, words: list[str], passage: tuple[int, int] | None, *, mark: str, width: int = 240
) -> str:
    """A hit's excerpt as HTML: around its first matching word, or, when a passage of it matched by
    meaning, from that passage (marked as a whole with ``mark``, the words in it marked in bold too)."""
    if passage is None:
        return highlight_html(excerpt(content, words, width), words, mark=mark)
    start, end = passage
    shown = excerpt(content[start:end], words, width)
    lead = "…" if start > 0 and not shown.startswith("…") else ""
    return f'<span style="{mark}">{lead}{highlight_html(shown, words, mark=mark)}</span>'
