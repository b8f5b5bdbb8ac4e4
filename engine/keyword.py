"""Keyword search over the archive: query parsing, routing by script, and the FTS5/LIKE queries.

Two kinds of query:

* natural language (the viewer, the CLI, hybrid search): any non-stop-word term matches; each term is
  quoted; a ``"double-quoted phrase"`` stays a phrase; rows are ranked by BM25;
* a seed phrase (the ``chat_history`` tool's keyword mode): the whole keyword is one phrase, newest first.

Routing: words in Latin and other spaced scripts go to the ``messages_fts`` table (porter over unicode61
with diacritics removed); CJK runs of 3 or more characters go to the ``messages_tri`` trigram table; CJK
runs of 1-2 characters (too short for trigrams) use ``LIKE`` on the content table, newest first. User text
is always quoted before it reaches FTS5 and passed as a bound parameter, so no input raises a syntax error.

Very common terms stay fast: each route ranks only a bounded newest-first set of matches
(:data:`CANDIDATES`), never every match.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import Connection

CANDIDATES = 1000
"""How many of the newest matches of one route are ranked."""

_CJK = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3040-\u30ff\u3100-\u312f\u31a0-\u31bf"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W_]+", re.UNICODE)
_PHRASE = re.compile(r'"([^"]+)"')

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "y",
        "also",
        "ever",
        "get",
        "got",
        "kind",
        "much",
        "many",
        "way",
    ]
)


@dataclass(frozen=True)
class Term:
    """One searchable piece of a query.

    Attributes:
        text: the text to find (a word, a phrase, a trigram or a short CJK run).
        route: ``"word"`` (unicode61 table), ``"tri"`` (trigram table) or ``"like"`` (substring scan).
    """

    text: str
    route: str


@dataclass
class Bounds:
    """Which rows a query may return."""

    session_key: str | None = None
    session_id: str | None = None
    min_id: int = 0
    max_id: int = 2**62  # exclusive
    after_ns: int = 0


@dataclass
class Scored:
    """Per-row scores gathered over the routes of one query."""

    score: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    matched: dict[int, int] = field(default_factory=lambda: defaultdict(int))


def quote(text: str) -> str:
    """An FTS5 string: double quotes around, inner double quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def route_phrase(text: str) -> Term | None:
    """The route for a text searched as one phrase (substring semantics for CJK)."""
    text = text.strip()
    if not text:
        return None
    runs = _CJK_RUN.findall(text)
    if any(len(run) < 3 for run in runs) or (runs and len(text) < 3):
        return Term(text, "like")
    if runs:
        return Term(text, "tri")
    if not _TOKEN.search(text):
        return Term(text, "like")  # punctuation only: nothing a tokenizer would index
    return Term(text, "word")


def parse_natural(query: str) -> list[Term]:
    """Terms of a natural-language query (any term may match)."""
    terms: list[Term] = []
    for phrase in _PHRASE.findall(query):
        term = route_phrase(phrase)
        if term is not None:
            terms.append(term)
    rest = _PHRASE.sub(" ", query)
    words: list[str] = []
    for token in _TOKEN.findall(rest):
        if _CJK_RUN.fullmatch(token):
            if len(token) < 3:
                terms.append(Term(token, "like"))
            else:
                terms.extend(Term(token[i : i + 3], "tri") for i in range(len(token) - 2))
        else:
            words.append(token.lower())
    kept = [w for w in words if w not in STOP_WORDS] or words
    terms.extend(Term(w, "word") for w in kept)
    unique: dict[tuple[str, str], Term] = {}
    for term in terms:
        unique.setdefault((term.text.lower(), term.route), term)
    return list(unique.values())


def _fts_expression(terms: list[Term], bounds: Bounds) -> str:
    body = " OR ".join(quote(t.text) for t in terms)
    expr = f"content : ({body})"
    if bounds.session_key:
        expr += f" AND skey : {quote(bounds.session_key)}"
    return expr


def _fts_candidates(
    conn: Connection, table: str, terms: list[Term], bounds: Bounds, limit: int
) -> list[tuple[int, float]]:
    sql = (
        f"SELECT rowid, bm25({table}, 1.0, 0.0) FROM {table} WHERE {table} MATCH ? "
        f"AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT ?"
    )
    params = (_fts_expression(terms, bounds), bounds.min_id, bounds.max_id, limit)
    return [(int(r[0]), float(r[1])) for r in conn.exec_driver_sql(sql, params)]


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def like_candidates(conn: Connection, term: Term, bounds: Bounds, limit: int) -> list[int]:
    where = "content LIKE ? ESCAPE '\\' AND id >= ? AND id < ?"
    params: list[object] = [_like_pattern(term.text), bounds.min_id, bounds.max_id]
    if bounds.session_id:
        where = "session_id = ? AND " + where
        params.insert(0, bounds.session_id)
    if bounds.after_ns:
        where += " AND send_at >= ?"
        params.append(bounds.after_ns)
    sql = f"SELECT id FROM messages WHERE {where} ORDER BY id DESC LIMIT ?"
    params.append(limit)
    return [int(r[0]) for r in conn.exec_driver_sql(sql, tuple(params))]


def search_ids(
    conn: Connection, terms: list[Term], bounds: Bounds, tables: set[str], limit: int = CANDIDATES
) -> list[tuple[int, float]]:
    """Row ids matching any term, best first, as ``(id, score)`` with higher scores better.

    A row's score adds the BM25 score of each FTS route it matched and 1.0 per short CJK term it contains;
    rows matching more of the query therefore come first. Ties go to the newer row.
    """
    scored = Scored()
    by_route: dict[str, list[Term]] = defaultdict(list)
    for term in terms:
        route = term.route
        if route == "word" and "messages_fts" not in tables:
            route = "tri" if "messages_tri" in tables and len(term.text) >= 3 else "like"
        if route == "tri" and "messages_tri" not in tables:
            route = "like"
        by_route[route].append(Term(term.text, route))
    for route, table in (("word", "messages_fts"), ("tri", "messages_tri")):
        if by_route.get(route):
            for row_id, bm25 in _fts_candidates(conn, table, by_route[route], bounds, limit):
                scored.score[row_id] += -bm25
                scored.matched[row_id] += 1
    for term in by_route.get("like", []):
        for row_id in like_candidates(conn, term, bounds, limit):
            scored.score[row_id] += 1.0
            scored.matched[row_id] += 1
    return sorted(
        scored.score.items(), key=lambda item: (scored.matched[item[0]], item[1], item[0]), reverse=True
    )


def search_phrase_ids(
    conn: Connection, term: Term, bounds: Bounds, tables: set[str], limit: int
) -> list[int]:
    """Row ids containing ``term`` as a phrase, newest first (the seed's keyword mode)."""
    table = {"word": "messages_fts", "tri": "messages_tri"}.get(term.route)
    if table is None or table not in tables:
        return like_candidates(conn, Term(term.text, "like"), bounds, limit)
    expr = f"content : {quote(term.text)}"
    if bounds.session_key:
        expr += f" AND skey : {quote(bounds.session_key)}"
    sql = (
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid >= ? AND rowid < ? "
        f"ORDER BY rowid DESC LIMIT ?"
    )
    return [int(r[0]) for r in conn.exec_driver_sql(sql, (expr, bounds.min_id, bounds.max_id, limit))]
