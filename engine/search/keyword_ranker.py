"""Keyword search over a session's hot messages and its archive: BM25-ranked terms, and the
``chat_history`` tool's phrase search.

``scope="recent"`` searches the messages still in history.json (since the last compaction cut);
``scope="all"`` searches everything ever archived. Each hit's ``source`` is ``recent`` or ``archive`` by the
session's cut (:mod:`engine.search.hits`).
"""

from __future__ import annotations

from engine.messages import MessageFilter
from engine.search import fulltext
from engine.search.hits import Hit
from engine.search.query import Query
from engine.sessions import archive
from engine.storage.sql import Connection


def start_ids(conn: Connection, session_id: str | None) -> dict[str, int]:
    """The compaction cut (first hot row id) of one session, or of every session."""
    if session_id is not None:
        return {session_id: archive.meta(conn, session_id).start_id}
    return archive.cuts(conn)


def bounds_for(
    conn: Connection, session_id: str | None, scope: str, where: MessageFilter
) -> fulltext.Bounds | None:
    """Row bounds for a search; ``None`` when the session has nothing archived."""
    bounds = fulltext.Bounds(where=where)
    if session_id is not None:
        key = archive.known_key(conn, session_id)
        if key is None:
            return None
        bounds.session_key, bounds.session_id = key, session_id
        if scope == "recent":
            bounds.min_id = archive.meta(conn, session_id).start_id
    return bounds


def keyword_search(
    conn: Connection,
    query: Query,
    *,
    session_id: str | None,
    scope: str,
    where: MessageFilter,
    limit: int,
    tables: set[str],
) -> list[Hit]:
    """Natural-language keyword search: any term, BM25-ranked, over one session or all of them, among the
    messages ``where`` admits."""
    bounds = bounds_for(conn, session_id, scope, where)
    if not query.terms or bounds is None:
        return []
    ranked = fulltext.rank(conn, list(query.terms), bounds, tables, limit)
    cuts = start_ids(conn, session_id)
    hits: list[Hit] = []
    for message, score in ranked:
        cut = cuts.get(message.session or "", 0)
        row_id = message.id or 0
        if scope == "recent" and row_id < cut:
            continue
        hits.append(Hit(message, score, "recent" if row_id >= cut else "archive"))
        if len(hits) >= limit:
            break
    return hits


def seed_keyword_search(
    conn: Connection, query: Query, *, session_id: str, after_ns: int, limit: int, tables: set[str]
) -> tuple[list[Hit], list[Hit]]:
    """The ``chat_history`` tool's keyword mode: the whole query as one phrase, archive part and recent
    part, newest first.

    The archive part holds rows cut out of history.json (before the compaction cut); the recent part holds
    rows still in history.json whose decoded content contains the keyword (case-insensitive), stopping at
    rows older than the time range. Recent hits that duplicate an archive hit (same role and content) are
    dropped. Each part has at most ``limit`` hits.
    """
    term = query.phrase
    key = archive.known_key(conn, session_id)
    if term is None or key is None:
        return [], []
    cut = archive.meta(conn, session_id).start_id
    archive_hits: list[Hit] = []
    if cut > 0:
        since = MessageFilter(since=after_ns)
        bounds = fulltext.Bounds(session_key=key, session_id=session_id, max_id=cut, where=since)
        ids = fulltext.phrase_ids(conn, term, bounds, tables, limit * 4)
        found = archive.by_ids(conn, ids)
        for row_id in ids:
            message = found.get(row_id)
            if message is not None and message.send_at >= after_ns:
                archive_hits.append(Hit(message, float(message.send_at), "archive"))
            if len(archive_hits) >= limit:
                break
    recent_bounds = fulltext.Bounds(session_id=session_id, min_id=cut, where=MessageFilter(since=after_ns))
    recent_ids = fulltext.like_ids(conn, term.text, recent_bounds, limit * 2)
    seen = {(h.message.role, h.message.content) for h in archive_hits}
    recent_hits: list[Hit] = []
    needle = term.text.casefold()
    found = archive.by_ids(conn, recent_ids)
    for row_id in recent_ids:
        message = found.get(row_id)
        if message is None or needle not in message.content.casefold():
            continue
        if (message.role, message.content) in seen:
            continue
        recent_hits.append(Hit(message, float(message.send_at), "recent"))
        if len(recent_hits) >= limit:
            break
    return archive_hits, recent_hits
