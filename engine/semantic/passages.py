"""What of a message is embedded: the whole message, as passages of the embedder's window.

A message whose text (with its previous turn, see :data:`engine.semantic.rows.PREVIOUS_TURN`) fits the
embedder's window is one passage: the text as before. A longer one is cut into passages that each fit
the window, consecutive ones sharing :data:`OVERLAP` tokens, each embedded and searched; a message's score
is its best passage's, and a hit names that passage (a character span of the message's content).

The window (:class:`Window`) is counted in the embedder's tokens where it can count them (``count_tokens``,
e.g. e5's own tokenizer), else by :func:`estimate` (one token per CJK character or symbol, one per three
letters or digits: above what XLM-RoBERTa's tokenizer gives for prose, code and CJK). Sizes, by embedder
family (:data:`WINDOW_TOKENS`): e5's 512 tokens less its start, end and ``passage: `` tokens; Gemini's
2,048; USE and the hash embedder, which read any length, the same 512 (a passage is still what one
meaning is measured over).

Why the overlap: a sentence cut at a passage's end is whole at the next one's start (sentences run 20-40
tokens; 64 keeps most whole), and a passage that the model reads a few tokens short (an estimated count
off) loses nothing the next passage does not hold. It costs 64 / (504 - 64), about 15 % more tokens on long
messages. Passages end at whitespace (or every 32 characters in text without spaces: CJK, long words).

The first passage of a long message carries the start of its previous turn (at most a quarter of the
window) and every passage the sender's name, as a short message's text does. A message is embedded up to
its :data:`LIMIT`-th character.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from engine.cjk import RUN as _CJK_RUN

WINDOW_TOKENS: dict[str, int] = {"e5": 504, "gemini": 2040, "use": 504, "hash": 504}
"""Content tokens a passage may hold, by embedder family (e5: 512 less start, end and ``passage:``)."""
DEFAULT_TOKENS = 504
OVERLAP = 64
"""Tokens consecutive passages share (see the module's docstring)."""
CONTEXT_SHARE = 4
"""The previous turn takes at most ``1 / CONTEXT_SHARE`` of a long message's first passage."""
PIECE = 32
"""Characters of a cut without whitespace (CJK runs, long words)."""
LIMIT = 100_000
"""Characters of a message embedded at most (about 50 passages of English): a longer one (a pasted log, a
dump) is embedded up to there and found by its words beyond (embedding 200 MB would take days)."""

_UNIT = re.compile(r"\S+\s*|\s+")
_ALNUM = re.compile(r"[^\W_]+")


def estimate(text: str) -> int:
    """Tokens of ``text`` by a rule that counts at least as many as XLM-RoBERTa's tokenizer on prose, code
    and CJK: one per CJK character, one per symbol, one per three letters or digits of a run."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    rest = _CJK_RUN.sub(" ", text)
    tokens = cjk
    for run in _ALNUM.findall(rest):
        tokens += (len(run) + 2) // 3
    tokens += sum(1 for c in rest if not c.isspace() and not c.isalnum() and unicodedata.category(c) != "Mn")
    return tokens


@dataclass(frozen=True)
class Window:
    """How much text one passage may hold: ``tokens`` by ``count``, ``overlap`` shared with the next."""

    tokens: int
    overlap: int
    count: Callable[[str], int]

    @property
    def signature(self) -> str:
        return f"{self.tokens}/{self.overlap}"


def window_for(embedder: object) -> Window:
    """The window of ``embedder`` (its ``id`` names its family; its ``count_tokens``, if any, counts)."""
    family = str(getattr(embedder, "id", "")).split("-", 1)[0]
    counter = getattr(embedder, "count_tokens", None)
    return Window(
        WINDOW_TOKENS.get(family, DEFAULT_TOKENS), OVERLAP, counter if callable(counter) else estimate
    )


ESTIMATED = Window(DEFAULT_TOKENS, OVERLAP, estimate)
"""The window of an embedder of no known family, counted by :func:`estimate`."""


@dataclass(frozen=True)
class Passage:
    """One embedded text of a message: ``content[start:end]`` with what is put before it."""

    start: int
    end: int
    text: str


def _units(text: str) -> list[tuple[int, int]]:
    """Where a passage may start and end: words with their trailing space, long ones cut every
    :data:`PIECE` characters."""
    out: list[tuple[int, int]] = []
    for match in _UNIT.finditer(text):
        start, end = match.span()
        while end - start > PIECE:
            out.append((start, start + PIECE))
            start += PIECE
        out.append((start, end))
    return out


def spans(text: str, window: Window, first: int | None = None) -> list[tuple[int, int]]:
    """Character spans of ``text``, each at most ``window.tokens`` (the first at most ``first``), next ones
    overlapping by up to ``window.overlap`` tokens; one span ``(0, len)`` for a text that fits."""
    units = _units(text)
    if not units:
        return [(0, len(text))]
    cost = [window.count(text[s:e].strip()) for s, e in units]
    found: list[tuple[int, int]] = []
    i, n = 0, len(units)
    while True:
        limit = window.tokens if found or first is None else first
        j, used = i, 0
        while j < n and (j == i or used + cost[j] <= limit):
            used += cost[j]
            j += 1
        found.append((units[i][0] if found else 0, units[j - 1][1]))
        if j >= n:
            break
        k, back = j, 0
        while k - 1 > i and back + cost[k - 1] <= window.overlap:
            back += cost[k - 1]
            k -= 1
        i = k
    last = found[-1]
    found[-1] = (last[0], len(text))
    return found


def _head(text: str, window: Window, tokens: int) -> str:
    """The start of ``text`` up to about ``tokens`` tokens (whole words)."""
    used = 0
    end = 0
    for start, stop in _units(text):
        used += window.count(text[start:stop].strip())
        if used > tokens:
            break
        end = stop
    return text[:end].rstrip()


def split(content: str, sender: str, previous: str | None, window: Window) -> tuple[tuple[Passage, ...], str]:
    """The passages of a message (``previous``: its previous turn's text as embedded, ``sender: content``;
    None without one) and the hash of what they embed (unchanged text and window: nothing to embed again).

    A message that fits the window with its previous turn is one passage, hashed as its text alone. Only
    the first :data:`LIMIT` characters of either are read."""
    content = content[:LIMIT]
    previous = None if previous is None else previous[:LIMIT]
    own = f"{sender}: {content}" if sender else content
    body = own if previous is None else previous + "\n" + own
    total = sum(window.count(body[s:e].strip()) for s, e in _units(body))
    if total <= window.tokens:
        return (Passage(0, len(content), body),), text_hash(body)
    prefix = f"{sender}: " if sender else ""
    context = _head(previous, window, window.tokens // CONTEXT_SHARE) if previous else ""
    budget = window.tokens - (window.count(prefix.strip()) if prefix else 0)
    first = budget - (window.count(context) + 1 if context else 0)
    parts: list[Passage] = []
    for number, (start, end) in enumerate(
        spans(content, Window(budget, window.overlap, window.count), first)
    ):
        lead = context + "\n" if number == 0 and context else ""
        parts.append(Passage(start, end, lead + prefix + content[start:end].rstrip()))
    return tuple(parts), text_hash(body + "\x00passages " + window.signature)


def text_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]
