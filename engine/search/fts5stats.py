"""What FTS5's ``bm25()`` reads of a table, for scoring a row in Python as it would.

FTS5 keeps, for a table with the default ``columnsize=1``, each row's length in tokens per column (the
``_docsize`` table, one SQLite variable-length integer per column) and the table's totals (record 1 of the
``_data`` table: the row count, then the tokens of each column); ``bm25()`` takes a row's length and the
mean length from them. :func:`occurrences` counts a word in a text as the ``unicode61`` tokenizer with
``porter`` stemming would, nearly: tokens are runs of letters and digits, and a token counts when it and
the word are the same after a few English suffixes are taken off (the tokenizer's Porter stemmer does
more). The context index scores rows this way only where FTS5 cannot do it cheaply
(:mod:`engine.search.context`).
"""

from __future__ import annotations

import functools
import re

from engine.storage.sql import Connection

_TOKEN = re.compile(r"[^\W_]+")
_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")


def varints(blob: bytes) -> list[int]:
    """The integers of an FTS5 record (SQLite's variable-length integers: big-endian, 7 bits a byte, the
    ninth byte whole)."""
    values: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        values.append(value)
    return values


def totals(conn: Connection, table: str) -> tuple[int, float]:
    """The table's rows and their mean length in tokens (all columns), as ``bm25()`` reads them."""
    blob = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").scalar()
    numbers = varints(bytes(blob)) if blob else []
    if not numbers or numbers[0] <= 0:
        return 1, 1.0
    return numbers[0], (sum(numbers[1:]) / numbers[0]) or 1.0


def lengths(conn: Connection, table: str, ids: list[int]) -> dict[int, float]:
    """Each row's length in tokens (all columns), from the table's ``_docsize``."""
    found: dict[int, float] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT id, sz FROM {table}_docsize WHERE id IN ({marks})", tuple(chunk)):
            found[int(row[0])] = float(sum(varints(bytes(row[1] or b""))))
    return found


def _stem(token: str) -> str:
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)]
    return token


@functools.lru_cache(maxsize=256)
def _starting(stem: str) -> re.Pattern[str]:
    """The tokens that begin with ``stem``."""
    return re.compile(r"(?<![^\W_])" + re.escape(stem) + r"[^\W_]*")


def occurrences(word: str, text: str) -> int:
    """How many times the folded ``text`` holds the folded ``word`` (a word of several tokens: as a
    phrase, without stemming)."""
    pieces = _TOKEN.findall(word)
    if len(pieces) != 1:
        return text.count(word) if word else 0
    whole, stem = pieces[0], _stem(pieces[0])
    if stem not in text:
        return 0
    return sum(1 for token in _starting(stem).findall(text) if token == whole or _stem(token) == stem)
