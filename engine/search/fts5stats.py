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

from engine.storage.sql import Connection, in_chunks

_TOKEN = re.compile(r"[^\W_]+")
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ingly", ""), ("edly", ""), ("ings", ""), ("ing", ""), ("ies", "y"), ("ied", "y"), ("es", ""),
    ("ed", ""), ("ly", ""), ("s", ""),
)  # fmt: skip
"""English suffixes taken off a token, and what replaces each."""


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
    for chunk, marks in in_chunks(ids):
        for row in conn.execute(f"SELECT id, sz FROM {table}_docsize WHERE id IN ({marks})", chunk):
            found[int(row[0])] = float(sum(varints(bytes(row[1] or b""))))
    return found


def _stems(token: str) -> frozenset[str]:
    """The token, and the token without each of a few English suffixes that it ends with."""
    found = {token}
    for suffix, instead in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            found.add(token[: -len(suffix)] + instead)
    return frozenset(found)


@functools.lru_cache(maxsize=256)
def _starting(prefix: str) -> re.Pattern[str]:
    """The tokens that begin with ``prefix``."""
    return re.compile(r"(?<![^\W_])" + re.escape(prefix) + r"[^\W_]*")


def occurrences(word: str, text: str) -> int:
    """How many times the folded ``text`` holds the folded ``word`` (a word of several tokens: as a
    phrase, without stemming)."""
    pieces = _TOKEN.findall(word)
    if len(pieces) != 1:
        return text.count(word) if word else 0
    stems = _stems(pieces[0])
    prefix = min(min(stems, key=len), pieces[0][:3], key=len)
    if prefix not in text:
        return 0
    return sum(1 for token in _starting(prefix).findall(text) if stems & _stems(token))
