"""Which characters are CJK: one definition for the query parser, the indexes, the embedder and the viewer.

CJK text has no spaces between words, so everything that splits text into words treats a run of these
characters apart: keyword search routes it to the trigram and bigram indexes, the trigram index holds
only rows containing one, the ``hash`` embedder takes its character n-grams, the viewer highlights it as
a substring.

The class: CJK radicals and Kangxi radicals, the ideographic marks that stand for words (々, 〇, the
Hangzhou numerals 〡-〩, 〸-〻), kana, bopomofo (with its extension), CJK Extension A, the Yijing hexagram
symbols, the unified ideographs, Hangul syllables, the compatibility ideographs and the supplementary
ideographic planes. CJK punctuation (、。「」 and the full-width forms) is not in it: it separates words.
"""

from __future__ import annotations

import re

from engine.textfold import fold

RANGES = (
    "\u2e80-\u2fdf"  # CJK radicals supplement, Kangxi radicals
    "\u3005\u3007\u3021-\u3029\u3038-\u303b"  # 々 〇, Hangzhou numerals, 〸-〻
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f\u31a0-\u31bf"  # bopomofo, bopomofo extended
    "\u3400-\u9fff"  # extension A, Yijing hexagrams, unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0002ffff"  # supplementary ideographic plane (extensions B-F) and beyond
)
"""The CJK characters as the inside of a character class (valid both in ``re`` and in SQLite's GLOB)."""

RUN = re.compile(f"[{RANGES}]+")
"""A maximal run of CJK characters."""

GLOB = f"*[{RANGES}]*"
"""A SQLite GLOB pattern matching a text that contains a CJK character."""

_ONE = re.compile(f"[{RANGES}]")


def is_cjk(char: str) -> bool:
    """Whether the one character ``char`` is CJK."""
    return _ONE.fullmatch(char) is not None


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains a CJK character."""
    return _ONE.search(text) is not None


_PAIR = re.compile(f"(?=([{RANGES}]{{2}}))")
"""Two CJK characters, found at every position (a lookahead): the overlapping bigrams of each run."""


def cjk_bigrams(text: str) -> str:
    """The overlapping CJK bigrams of a text folded for search (:func:`engine.textfold.fold`),
    space-separated (what ``messages_bi`` indexes)."""
    if text.isascii():  # no CJK character (most texts): nothing to fold or search
        return ""
    return " ".join(_PAIR.findall(fold(text)))
