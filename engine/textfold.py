"""Unicode folding for search: one function, :func:`fold`, applied to what every index holds and to every
query, so two spellings of a word that a reader takes for the same word find each other.

``fold(text)`` is, in order:

1. NFKC: a decomposed (NFD) ``brûlée``, ``Việt`` or Hangul typed as conjoining jamo is composed; the
   compatibility forms are replaced by what they stand for: full-width ``ＡＰＩ`` becomes ``API``,
   half-width katakana full-width, the ligature ``ﬁ`` ``fi``, a compatibility ideograph its unified one;
2. case folding (``str.casefold``: ``ß`` becomes ``ss``, final ``ς`` ``σ``), then NFKC again when folding
   left a text that is not normalized;
3. the default-ignorable characters removed (Unicode's ``Default_Ignorable_Code_Point``: zero-width space,
   joiners and non-joiners, soft hyphen, word joiner, BOM, variation selectors, bidi controls, Hangul
   fillers, tags), so an invisible character inside a word does not cut it in two.

Diacritics are not removed here: the word indexes' tokenizer (``unicode61 remove_diacritics 2``) removes
them from both the indexed text and the query, as it always did, so ``brulee`` still finds ``brûlée``;
the CJK indexes (trigrams, bigrams) keep them (a Japanese voiced mark is no diacritic to drop).

Only what is indexed is folded: stored messages come back exactly as written. In SQL the function is
:data:`SQL_FUNCTION`, registered on every connection the store opens (the FTS triggers call it).
"""

from __future__ import annotations

import re
import unicodedata

SQL_FUNCTION = "memtray_fold"
"""The name of :func:`fold` in SQL (``memtray_fold(content)``), on every connection of the store."""

IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
"""Unicode's default-ignorable code points (``DerivedCoreProperties.txt``), as the inside of a ``re``
character class."""

_IGNORABLE = re.compile(f"[{IGNORABLE}]+")


def fold(text: str) -> str:
    """``text`` folded for search (see the module's docstring); ASCII text is only lower-cased."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)).casefold()
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return _IGNORABLE.sub("", text)  # NFKC makes some (a Hangul filler's compatibility form)


def fold_spans(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` folded for search, with where each folded character comes from: ``(start, end)`` in
    ``text`` of the character with its combining marks and invisible characters (what the viewer marks
    when a search term matches there). Folded piece by piece, so it equals :func:`fold` but where NFKC
    joins two such pieces (a Hangul syllable typed as jamo)."""
    if text.isascii():
        return text.lower(), [(i, i + 1) for i in range(len(text))]
    folded: list[str] = []
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = start + 1
        while end < len(text) and _joins_previous(text[end]):
            end += 1
        piece = fold(text[start:end])
        folded.append(piece)
        spans.extend([(start, end)] * len(piece))
        start = end
    return "".join(folded), spans


def _joins_previous(char: str) -> bool:
    """A combining mark, a default-ignorable character or a conjoining Hangul vowel or final."""
    return (
        unicodedata.category(char)[0] == "M"
        or _IGNORABLE.fullmatch(char) is not None
        or "\u1160" <= char <= "\u11ff"
        or "\ud7b0" <= char <= "\ud7ff"
    )


_last: tuple[str, str] = ("", "")
"""The last text :func:`sql_fold` folded, and its fold: an insert's triggers fold the same text two or three
times in a row (the word table's value, the trigram table's condition and value)."""


def sql_fold(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """:func:`fold` as an SQL function: a text folded, any other value (NULL, a number) as it is.

    The triggers pass a text's bytes (``CAST(content AS BLOB)``): ``sqlite3`` cannot hand Python a text that
    is not UTF-8 (a row garbled on a damaged page), and the statement would fail. Bytes that do not decode
    are read with U+FFFD in their place, so such a row can still be indexed, changed or deleted."""
    global _last
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif not isinstance(value, str):
        return value
    last = _last  # one read: another thread's (text, fold) pair is replaced whole, never half
    if last[0] == value:
        return last[1]
    folded = fold(value)
    _last = (value, folded)
    return folded
