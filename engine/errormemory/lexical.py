"""The keyword fallback of error-memory search: the original's scan plus full-text matching.

Used when vectors are off or find nothing at or above the floor (the original has only the scan, and
no floor). Two sources, the full-text matches first:

* **full text** over keywords, symptom, cause and action (not the tool name: error texts name their
  tool, which would match every record of it). Each term of the query that is neither a stop word nor
  an error word (``error``, ``failed``, ...) is quoted and routed by script as in :mod:`engine.search.terms`
  (words to ``error_memory_fts``, CJK runs of 3+ to ``error_memory_tri``, shorter CJK runs to ``LIKE``).
  A record must match at least half of the terms; more terms, then a better BM25, rank first;
* **the original's scan**: with a tool, that tool's records tagged ``error_type:<class>`` of the query
  (nothing when the class is ``unknown``); without one, records whose tool name, symptom or cause
  contains the lower-cased query, or one of whose keywords contains it or is contained in it.

When vectors did run and found nothing at or above the floor, the scan is *strict*: the catch-all class
``other`` and the substring scan (a keyword such as ``spa`` is "contained in" ``space``) only brought
back the noise the floor had just kept out (measured with ``python -m bench.errors_floor``), so they are
left out; full-text matches and specific classes (``timeout``, ``no_result``, ...) still count. Without
vectors the scan is exactly the original's.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

from engine.errormemory.records import ERROR_TYPE_PREFIX, classify
from engine.search.terms import Term, parse_natural, quote
from engine.storage.sql import Connection

MAX_TERMS = 16
CANDIDATES = 1000
_COLUMNS = ("keywords", "symptom", "cause", "action")
_FTS_COLUMNS = "{keywords symptom cause action}"
ERROR_WORDS = frozenset(
    ["error", "errors", "err", "failed", "fail", "fails", "failure", "fatal", "exception"]
)
"""Words in nearly every error text: they never count as a match on their own."""


def seed_scan(
    conn: Connection, query: str, tool_name: str | None, now: int, limit: int, *, strict: bool = False
) -> list[int]:
    """The original's keyword scan, newest first.

    ``strict`` (after vectors found nothing at or above the floor) keeps only what is specific: the
    tool's records of the query's error class unless that class is the catch-all ``other``; without a
    tool, only records of a tool named exactly as the query (no substring scan).
    """
    lowered = query.strip().lower()
    if tool_name is not None:
        kind = classify(lowered)
        if kind == "unknown" or (strict and kind == "other"):
            return []
        tag = json.dumps(ERROR_TYPE_PREFIX + kind)
        sql = (
            "SELECT num FROM error_memory WHERE tool_name = ? AND expires_at > ? "
            "AND instr(keywords, ?) > 0 ORDER BY created_at DESC, num DESC LIMIT ?"
        )
        params: tuple[object, ...] = (tool_name, now, tag, limit)
    elif strict:
        sql = (
            "SELECT num FROM error_memory WHERE lower(tool_name) = ? AND expires_at > ? "
            "ORDER BY created_at DESC, num DESC LIMIT ?"
        )
        params = (lowered, now, limit)
    else:
        if not lowered:
            return []
        sql = (
            "SELECT num FROM error_memory m WHERE expires_at > ? AND ("
            "instr(lower(tool_name), ?) > 0 OR instr(lower(symptom), ?) > 0 OR instr(lower(cause), ?) > 0 "
            "OR EXISTS (SELECT 1 FROM json_each(m.keywords) k WHERE instr(k.value, ?) > 0 "
            "OR instr(?, k.value) > 0)) ORDER BY created_at DESC, num DESC LIMIT ?"
        )
        params = (now, lowered, lowered, lowered, lowered, lowered, limit)
    return [int(r[0]) for r in conn.execute(sql, params)]


def _like(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _term_hits(
    conn: Connection, term: Term, tool_name: str | None, now: int, tables: set[str]
) -> list[tuple[int, float]]:
    """``(num, score)`` of live records matching one term (higher score is better)."""
    table = {"word": "error_memory_fts", "tri": "error_memory_tri"}.get(term.route)
    tool_sql = " AND m.tool_name = ?" if tool_name is not None else ""
    tool: tuple[object, ...] = (tool_name,) if tool_name is not None else ()
    if table is not None and table in tables:
        sql = (
            f"SELECT {table}.rowid, bm25({table}) FROM {table} JOIN error_memory m ON m.num = {table}.rowid "
            f"WHERE {table} MATCH ? AND m.expires_at > ?{tool_sql} "
            f"ORDER BY {table}.rowid DESC LIMIT ?"
        )
        params = (f"{_FTS_COLUMNS} : {quote(term.text)}", now, *tool, CANDIDATES)
        return [(int(r[0]), -float(r[1])) for r in conn.execute(sql, params)]
    where = " OR ".join(f"m.{c} LIKE ? ESCAPE '\\'" for c in _COLUMNS)
    sql = (
        f"SELECT m.num FROM error_memory m WHERE ({where}) AND m.expires_at > ?{tool_sql} "
        "ORDER BY m.num DESC LIMIT ?"
    )
    pattern = _like(term.text)
    return [
        (int(r[0]), 1.0) for r in conn.execute(sql, (*(pattern for _ in _COLUMNS), now, *tool, CANDIDATES))
    ]


def full_text(conn: Connection, query: str, tool_name: str | None, now: int, tables: set[str]) -> list[int]:
    """Records matching at least half of the query's terms, best first."""
    terms = parse_natural(query, cjk_route="tri")
    terms = [t for t in terms if t.text.lower() not in ERROR_WORDS][:MAX_TERMS]
    if not terms:
        return []
    score: dict[int, float] = defaultdict(float)
    matched: dict[int, int] = defaultdict(int)
    for term in terms:
        for num, value in _term_hits(conn, term, tool_name, now, tables):
            score[num] += value
            matched[num] += 1
    need = max(1, math.ceil(len(terms) / 2))
    return sorted(
        (n for n in score if matched[n] >= need), key=lambda n: (matched[n], score[n], n), reverse=True
    )


def keyword_search(
    conn: Connection,
    query: str,
    tool_name: str | None,
    now: int,
    tables: set[str],
    limit: int,
    *,
    strict: bool = False,
) -> list[int]:
    """Row numbers of the keyword fallback: full-text matches first, then the original's scan.

    ``strict``: vectors were searched and found nothing at or above the floor, so only specific keyword
    evidence may still return a record (see :func:`seed_scan`).
    """
    found: dict[int, None] = dict.fromkeys(full_text(conn, query, tool_name, now, tables))
    if len(found) < limit:
        for num in seed_scan(conn, query, tool_name, now, limit, strict=strict):
            found.setdefault(num, None)
    return list(found)[:limit]
