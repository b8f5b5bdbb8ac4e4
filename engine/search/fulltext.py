"""Full-text search in SQL: each term's newest matches, and their BM25 ranking.

Ranking every match of a common word is what makes full-text search slow (FTS5's ``bm25()`` scans a
term's whole posting list for its statistics: ~20 ms for a word in half of a million messages). Here
each term fetches at most :data:`CANDIDATES` of its newest matches — an index walk that costs well under
a millisecond — and the BM25 weights come from those lists: a term with fewer matches than that has its
exact document frequency; a term with more has it estimated from how densely its newest matches are
packed. The best candidates are then loaded and scored in full (:mod:`engine.search.bm25`, with document
length), where a row older than a common term's newest matches is checked for that term in its text.

A search's :class:`~engine.messages.MessageFilter` (role, sender, times) is part of each term's query
(:func:`filter_sql`), so the newest matches are those it admits: a filtered search's candidates are as many
as an unfiltered one's, however few messages it admits. The word counts behind the BM25 weights stay those
of the unfiltered bounds (a filter changes which rows compete, not how rare a word is).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from engine.messages import EVERY_MESSAGE, Message, MessageFilter
from engine.search import bm25
from engine.search.terms import Term, quote
from engine.sessions import archive
from engine.sessions.schema import trigram_skey
from engine.storage.sql import Connection
from engine.textfold import SQL_FUNCTION, fold

CANDIDATES = 500
"""The newest matches fetched per term."""
RERANK = 200
"""Candidates loaded and scored in full: a fixed number, whatever the page size, so that a ranking never
depends on how many of its hits are asked for (a search of 10 hits is the first 10 of one of 200)."""

# route -> (FTS table, the column holding the text)
TABLES = {
    "word": ("messages_fts", "content"),
    "tri": ("messages_tri", "content"),
    "bi": ("messages_bi", "grams"),
}


@dataclass
class Bounds:
    """Which rows a query may return."""

    session_key: str | None = None
    session_id: str | None = None
    min_id: int = 0
    max_id: int = 2**62  # exclusive
    where: MessageFilter = EVERY_MESSAGE


CASEFOLD = "memtray_casefold"
"""The SQL function that casefolds a text (Python's ``str.casefold``: SQLite's own folds ASCII only)."""


def filter_sql(conn: Connection, where: MessageFilter, row: str) -> tuple[str, list[object]]:
    """``AND`` conditions on the ``messages`` row named ``row`` that keep what ``where`` admits (the rule
    of :meth:`MessageFilter.admits`, in SQL), and their parameters; empty when it admits every message."""
    conditions: list[str] = []
    params: list[object] = []
    if where.role is not None:
        conditions.append(f"{row}.role = ?")
        params.append(where.role)
    if where.sender is not None:
        conn.raw.create_function(CASEFOLD, 1, lambda value: (value or "").casefold(), deterministic=True)
        conditions.append(f"{CASEFOLD}({row}.sender) = ?")
        params.append(where.sender.casefold())
    if where.since:
        conditions.append(f"{row}.send_at >= ?")
        params.append(where.since)
    if where.until is not None:
        conditions.append(f"{row}.send_at > 0 AND {row}.send_at <= ?")
        params.append(where.until)
    return "".join(f" AND {c}" for c in conditions), params


def route_of(term: Term, tables: set[str]) -> str:
    """The term's route, or ``like`` when its table is missing on this SQLite."""
    table = TABLES.get(term.route)
    if table is None or table[0] not in tables:
        return "like"
    return term.route


def ids_of(conn: Connection, sql: str, params: tuple[object, ...]) -> list[int]:
    """The first column of a query, through the DB-API cursor (row objects cost more than the search)."""
    cursor = conn.cursor()
    try:
        return [row[0] for row in cursor.execute(sql, params).fetchall()]
    finally:
        cursor.close()


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def like_ids(conn: Connection, text: str, bounds: Bounds, limit: int, *, folded: bool = False) -> list[int]:
    """Ids of rows containing ``text`` (case-insensitive for ASCII), newest first.

    ``folded``: match the rows' text folded for search (:mod:`engine.textfold`; a Python call per row, for
    scans of a few rows). Else the stored text is matched as it is, so a scan of the whole archive stays
    in SQLite: a query folded to another form than the stored one (a half-width katakana, a compatibility
    ideograph searched alone) is not found there.
    """
    content = f"{SQL_FUNCTION}(m.content)" if folded else "m.content"
    condition = f"{content} LIKE ? ESCAPE '\\' AND m.id >= ? AND m.id < ?"
    params: list[object] = [_like_pattern(text), bounds.min_id, bounds.max_id]
    if bounds.session_id:
        condition = "m.session_id = ? AND " + condition
        params.insert(0, bounds.session_id)
    filtered, more = filter_sql(conn, bounds.where, "m")
    params += [*more, limit]
    return [
        int(r[0])
        for r in conn.execute(
            f"SELECT m.id FROM messages m WHERE {condition}{filtered} ORDER BY m.id DESC LIMIT ?",
            tuple(params),
        )
    ]


def term_ids(conn: Connection, term: Term, bounds: Bounds, tables: set[str], limit: int) -> list[int]:
    """Ids of rows matching ``term`` (as a phrase), newest first."""
    route = route_of(term, tables)
    if route == "like":
        return like_ids(conn, term.text, bounds, limit)
    table, column = TABLES[route]
    expr = f"{column} : {quote(term.text)}"
    if bounds.session_key:
        key = trigram_skey(bounds.session_key) if route == "tri" else bounds.session_key
        expr += f" AND skey : {quote(key)}"
    filtered, params = filter_sql(conn, bounds.where, "m")
    join = " JOIN messages m ON m.id = f.rowid" if filtered else ""
    sql = (
        f"SELECT f.rowid FROM {table} f{join} WHERE {table} MATCH ? AND f.rowid >= ? AND f.rowid < ?"
        f"{filtered} ORDER BY f.rowid DESC LIMIT ?"
    )
    return ids_of(conn, sql, (expr, bounds.min_id, bounds.max_id, *params, limit))


class RowCounter:
    """Counts rows within the bounds (bounded work; ids are dense enough to estimate globally)."""

    def __init__(self, conn: Connection, bounds: Bounds) -> None:
        self.conn, self.bounds = conn, bounds
        top = conn.execute("SELECT MAX(id) FROM messages").scalar()
        self.top = min(int(top or 0) + 1, bounds.max_id)

    def rows_from(self, first_id: int) -> int:
        start = max(first_id, self.bounds.min_id)
        if self.bounds.session_id is None:
            return max(1, self.top - start)
        sql = (
            "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE session_id = ? AND id >= ? AND id < ? "
            "LIMIT 1000000)"
        )
        return max(1, int(self.conn.execute(sql, (self.bounds.session_id, start, self.top)).scalar_one()))

    def matches(self, ids: list[int]) -> float:
        """How many rows within the bounds match, from a term's newest matches (``ids``, newest first, at
        most :data:`CANDIDATES`): exact below the cap, estimated from their density at it."""
        if len(ids) < CANDIDATES:
            return float(len(ids))
        return len(ids) * self.rows_from(self.bounds.min_id) / self.rows_from(ids[-1])


def _contains(term: Term, text: str) -> bool:
    return term.text in fold(text)


def rank(
    conn: Connection, terms: list[Term], bounds: Bounds, tables: set[str]
) -> list[tuple[Message, float]]:
    """Messages matching any term, best first by BM25, at most :data:`RERANK` of them: one ranking, the
    same whatever page of it is wanted."""
    found = [(term, ids) for term in terms if (ids := term_ids(conn, term, bounds, tables, CANDIDATES))]
    if not found:
        return []
    counter = RowCounter(conn, bounds)
    total = counter.rows_from(bounds.min_id)
    weights = [bm25.idf(counter.matches(ids), total) for _, ids in found]
    rough: dict[int, float] = defaultdict(float)
    for (_, ids), weight in zip(found, weights, strict=True):
        for row_id in ids:
            rough[row_id] += weight
    best = sorted(rough, key=lambda row_id: (rough[row_id], row_id), reverse=True)[:RERANK]
    loaded = archive.by_ids(conn, best)
    if not loaded:
        return []
    average = sum(len(m.content) for m in loaded.values()) / len(loaded) or 1.0
    members = [set(ids) for _, ids in found]
    oldest = [ids[-1] if len(ids) >= CANDIDATES else -1 for _, ids in found]
    scored: list[tuple[Message, float]] = []
    for row_id, message in loaded.items():
        held = [
            (weights[index], 1.0)
            for index, (term, _) in enumerate(found)
            if row_id in members[index] or (row_id < oldest[index] and _contains(term, message.content))
        ]
        scored.append((message, bm25.score(held, len(message.content), average, bm25.PLAIN_B)))
    scored.sort(key=lambda item: (item[1], item[0].id or 0), reverse=True)
    return scored


def phrase_ids(conn: Connection, term: Term, bounds: Bounds, tables: set[str], limit: int) -> list[int]:
    """Ids of rows containing ``term`` as a phrase, newest first (the ``chat_history`` tool's keyword mode)."""
    return term_ids(conn, term, bounds, tables, limit)
