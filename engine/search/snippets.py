"""Snippets of stored text around a query's words, for results shown as one line (MCP hits, the CLI).

A snippet is at most :data:`SNIPPET_CHARS` characters of a message, whitespace squashed, around the
query's terms it holds, found in any spelling search folds alike (:mod:`engine.textfold`); without one
(a hit found by meaning) it is the message's start.
"""

from __future__ import annotations

import re

from engine.cjk import has_cjk
from engine.search.terms import STOP_WORDS
from engine.textfold import fold, fold_spans

SNIPPET_CHARS = 300
_SNIPPET_SCAN = 200_000  # a snippet comes from a message's first 200k characters (a 10 MB message stays fast)

_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_PHRASE = re.compile(r'"([^"]+)"')


def squash(text: str) -> str:
    """Whitespace runs (newlines included) as one space, trimmed."""
    return _SPACES.sub(" ", text).strip()


def shorten(text: str, limit: int) -> str:
    """``text`` squashed and cut to ``limit`` characters at a word boundary, with ``…`` when cut."""
    flat = squash(text)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def snippet_terms(query: str) -> list[str]:
    """What of a query to look for in a hit's snippet, folded for search (:mod:`engine.textfold`), longest
    first: its quoted phrases, its words (stop words and single letters dropped), and each 2-character
    piece of a CJK run. (The viewer marks :func:`engine.search.query.query_terms`, CJK trigrams too.)"""
    lowered = fold(query)
    terms = {p.strip() for p in _PHRASE.findall(lowered) if p.strip()}
    for word in _WORD.findall(lowered):
        if has_cjk(word):
            terms.add(word)
            terms.update(word[i : i + 2] for i in range(len(word) - 1))
        elif len(word) > 1 and word not in STOP_WORDS:
            terms.add(word)
    return sorted(terms, key=lambda t: (-len(t), t))


def _stem(term: str) -> str:
    """A word's start, for finding its other forms (``painting`` in ``paints``)."""
    return term[: max(4, len(term) - 3)] if len(term) > 5 and not has_cjk(term) else term


def snippet(content: str, terms: list[str], limit: int = SNIPPET_CHARS) -> tuple[str, list[str]]:
    """At most ``limit`` characters of ``content`` around the matched terms, and the terms found.

    Without a match (a semantic hit) the snippet is the message's start.
    """
    flat = squash(content[:_SNIPPET_SCAN])
    lowered, spans = fold_spans(flat)  # a term is found in any spelling search folds alike
    found = [t for t in terms if _stem(t) in lowered]
    matched = [t for t in found if not any(t != other and t in other for other in found)]
    if len(flat) <= limit:
        return flat, matched
    positions = sorted(spans[lowered.find(_stem(t))][0] for t in matched)
    # The window holding the most of the matched terms, starting a third of it before the first of them.
    first = max(positions, key=lambda p: sum(p <= q < p + limit * 2 // 3 for q in positions), default=0)
    start = max(0, min(first - limit // 3, len(flat) - limit))
    if start > 0:
        space = flat.find(" ", start, first) if first > start else -1
        start = space + 1 if space != -1 else start
    body = flat[start : start + limit - 2].strip()
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + limit - 2 < len(flat) else ""
    return (prefix + body + suffix)[:limit], matched
