"""Keyword search over each message read between its neighbours (the keyword side of hybrid search).

An answer often only makes sense with the turns around it: "Yes, last Tuesday!" holds the evidence, the
turn before holds the words a search uses, and the turn after often names what was just said. The table
``context_fts`` (FTS5, ``porter unicode61 remove_diacritics 2``; rowid = message id) keeps each message in
three columns, ``prev`` (the session's message before it), ``own`` and ``next`` (the message after it),
each as ``sender: content`` folded for search (:mod:`engine.textfold`, since ``m011_unicode_fold``),
plus the session key. A search ranks by BM25 with the column weights of
:data:`COLUMN_WEIGHTS`: a message's own words count most, its neighbours' help. Measured on LoCoMo
(``bench/README.md``), this one ranking beats both a message alone and a message with its previous turn
at every cut-off. Plain keyword search (``match="keyword"``) is unchanged.

The table is made by migration ``m002_vectors`` (in this form since ``m007_context_neighbours``) and
written through the hooks of :class:`engine.search.conductor.Search` in the append's transaction: a new
message gets its row, and the message before it gets the new one as its ``next``.

The table's tokenizer cannot split CJK text into words, so a query with CJK terms reads its messages
between their neighbours another way (:func:`neighbour_ranking`): plain keyword search ranks each message
alone (the bigrams of ``messages_bi``), then every message also gets :data:`NEIGHBOUR_WEIGHTS` times the
scores of the turns before and after it. Measured on a Traditional-Chinese set (``bench/README.md``), a
message gaining half of its previous turn's score raises keyword hit@10 from 0.782 to 0.855.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from engine.messages import EVERY_MESSAGE, Message, MessageFilter, own_text
from engine.search import bm25, fts5stats, fulltext, terms
from engine.search.query import Query
from engine.sessions import archive
from engine.storage import fts
from engine.storage.sql import Connection, in_chunks
from engine.textfold import fold

TABLE = "context_fts"
COLUMNS = ("prev", "own", "next")
COLUMN_WEIGHTS = (0.5, 1.0, 0.5)
"""BM25 weights of ``prev``, ``own`` and ``next`` (set by ``bench/retrieval.py --sweep``)."""

NEIGHBOUR_WEIGHTS = (0.5, 0.0)
"""What a message gains of the plain keyword score of its previous and of its next turn (CJK queries; set
by ``bench/retrieval.py --sweep``: the next turn's share only lowered hit@1)."""

EXACT_MATCHES = 20_000
"""Up to this many matching rows (of all the words, in all sessions), FTS5 ranks them all (~25 ms)."""
SCANNED_ROWS = 20_000
"""A word's rows that FTS5 may scan to score the candidates (estimated from its share of all rows); where
more lie between the oldest and the newest candidate, the older candidates are scored in Python."""
BATCH = 2000
"""Rows written per statement when the whole archive is indexed."""

_INSERT = f"INSERT OR REPLACE INTO {TABLE}(rowid, prev, own, next, skey) VALUES (?, ?, ?, ?, ?)"


def _indexed(sender: str, content: str) -> str:
    """What the table holds of a message: ``sender: content`` folded for search (:mod:`engine.textfold`)."""
    return fold(own_text(sender, content))


def create(conn: Connection) -> None:
    """Create the table (if FTS5 exists) and index every archived message."""
    try:
        fts.create_table(
            conn, TABLE, (*COLUMNS, "skey"), "porter unicode61 remove_diacritics 2", if_not_exists=True
        )
    except Exception:  # no FTS5 in this SQLite: hybrid search uses plain keyword search
        return
    batch: list[tuple[int, str, str, str, str]] = []  # (id, prev, own, next, skey)
    last: tuple[int, str, str, str, str] | None = None  # (id, session, prev, own, skey): waits for its next
    rows = conn.execute("SELECT id, session_id, skey, sender, content FROM messages ORDER BY session_id, id")
    for message_id, session, skey, sender, content in rows:  # streamed: only a batch is held in memory
        own = _indexed(sender or "", content)
        same_session = last is not None and last[1] == session
        if last is not None:
            batch.append((last[0], last[2], last[3], own if same_session else "", last[4]))
        prev = last[3] if last is not None and same_session else ""
        last = (int(message_id), session, prev, own, skey)
        if len(batch) >= BATCH:
            conn.execute(_INSERT, batch)
            batch.clear()
    if last is not None:
        batch.append((last[0], last[2], last[3], "", last[4]))
    if batch:
        conn.execute(_INSERT, batch)


def has_neighbour_columns(conn: Connection) -> bool:
    """Whether the table exists in its current form (``prev``, ``own``, ``next`` columns)."""
    try:
        names = {r[1] for r in conn.execute(f"PRAGMA table_info({TABLE})")}
    except Exception:
        return False
    return set(COLUMNS) <= names


def m007_context_neighbours(conn: Connection) -> None:
    """Rebuild ``context_fts`` with the ``prev``/``own``/``next`` columns (it had previous turn + own)."""
    if not exists(conn) or has_neighbour_columns(conn):
        return
    conn.execute(f"DROP TABLE {TABLE}")
    create(conn)


def exists(conn: Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).first()
    return row is not None


def _neighbour(conn: Connection, session: str, message_id: int, after: bool) -> tuple[int, str] | None:
    """``(id, sender: content)`` of the session's message just before (or after) ``message_id``."""
    sql = (
        "SELECT id, sender, content FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT 1"
        if after
        else "SELECT id, sender, content FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT 1"
    )
    row = conn.execute(sql, (session, message_id)).first()
    return None if row is None else (int(row[0]), _indexed(row[1] or "", row[2]))


def _set_next(conn: Connection, message_id: int, value: str) -> None:
    conn.execute(f"UPDATE {TABLE} SET next = ? WHERE rowid = ?", (value, message_id))


def add(conn: Connection, messages: Sequence[Message]) -> None:
    """Index newly archived messages (inside the append's transaction).

    The messages of one append are consecutive in their session and come after all its other messages,
    so only the first one's previous turn is read from the database (and gets it as its ``next``); the
    others take their neighbours from the batch.
    """
    rows: list[list[str | int]] = []  # [id, prev, own, next, skey]
    latest: dict[str, list[str | int]] = {}  # session -> the row of its latest message
    for message in messages:
        if message.id is None or not message.session:
            continue
        session, own = message.session, _indexed(message.sender, message.content)
        before = latest.get(session)
        if before is not None:
            before[3] = own
            prev, key = before[2], before[4]
        else:
            previous = _neighbour(conn, session, message.id, after=False)
            prev = previous[1] if previous is not None else ""
            if previous is not None:
                _set_next(conn, previous[0], own)
            key = archive.known_key(conn, session) or ""
        latest[session] = [message.id, prev, own, "", key]
        rows.append(latest[session])
    if rows:
        conn.execute(_INSERT, [tuple(r) for r in rows])


def forget(conn: Connection, session: str, message_id: int) -> None:
    """Remove a message's row and join its neighbours' rows around the gap (before the message is deleted)."""
    conn.execute(f"DELETE FROM {TABLE} WHERE rowid = ?", (message_id,))
    previous = _neighbour(conn, session, message_id, after=False)
    following = _neighbour(conn, session, message_id, after=True)
    if previous is not None:
        _set_next(conn, previous[0], following[1] if following is not None else "")
    if following is not None:
        conn.execute(
            f"UPDATE {TABLE} SET prev = ? WHERE rowid = ?",
            (previous[1] if previous is not None else "", following[0]),
        )


def clear_session(conn: Connection, session_id: str) -> None:
    conn.execute(
        f"DELETE FROM {TABLE} WHERE rowid IN (SELECT id FROM messages WHERE session_id = ?)",
        (session_id,),
    )


def search(
    conn: Connection,
    query: Query,
    *,
    session_key: str | None,
    session_id: str | None,
    where: MessageFilter,
    limit: int,
) -> list[tuple[int, float]]:
    """``(message id, score)`` of the messages ``where`` admits whose own or neighbouring text matches any
    word of ``query``, best first (weighted BM25; higher is better). The filter is part of the FTS query,
    as in :mod:`engine.search.fulltext`. ``session_key`` is the key of the session ``session_id``.

    FTS5's ``bm25()`` scores every row that matches any word in the searched sessions: cheap for rare
    words, about a second for a word in half of a million messages. A session of at most
    :data:`EXACT_MATCHES` messages is ranked by FTS5 whatever the home's size. Otherwise each word's
    matches are counted first (its newest :data:`~engine.search.fulltext.CANDIDATES`, estimated from their
    density beyond that); up to :data:`EXACT_MATCHES` in all, FTS5 ranks exactly, else
    :func:`_bounded_search` ranks each word's newest candidates with the same scores (measured on LoCoMo
    forced onto that path: the same figures as the exact path, ``bench/README.md``).
    """
    words = query.words
    if not words:
        return []
    if session_key and session_id and _session_rows(conn, session_id) <= EXACT_MATCHES:
        return _exact_search(conn, words, session_key, where, limit)  # FTS5 scores the session's rows only
    everywhere = fulltext.RowCounter(conn, fulltext.Bounds())
    matches = {
        word: everywhere.matches(_column_ids(conn, " ".join(COLUMNS), word, None, EVERY_MESSAGE))
        for word in words
    }
    if sum(matches[word] for word in words) <= EXACT_MATCHES:
        return _exact_search(conn, words, session_key, where, limit)
    return _bounded_search(conn, words, matches, everywhere.rows_from(0), session_key, where, limit)


def _session_rows(conn: Connection, session_id: str) -> int:
    """The session's messages, counted up to one more than :data:`EXACT_MATCHES` (bounded work)."""
    sql = "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE session_id = ? LIMIT ?)"
    return int(conn.execute(sql, (session_id, max(EXACT_MATCHES, 0) + 1)).scalar_one())


def _exact_search(
    conn: Connection, words: list[str], session_key: str | None, where: MessageFilter, limit: int
) -> list[tuple[int, float]]:
    expr = _in_columns("(" + " OR ".join(terms.quote(w) for w in words) + ")")
    if session_key:
        expr += f" AND skey : {terms.quote(session_key)}"
    filtered, params = fulltext.filter_sql(conn, where, "m")
    join = " JOIN messages m ON m.id = c.rowid" if filtered else ""
    sql = (
        f"SELECT c.rowid, bm25({TABLE}, {_WEIGHTS}) AS rank FROM {TABLE} c{join} WHERE {TABLE} MATCH ?"
        f"{filtered} ORDER BY rank LIMIT ?"
    )
    return [(int(r[0]), -float(r[1])) for r in conn.execute(sql, (expr, *params, limit))]


def _in_columns(match: str) -> str:
    """An FTS5 query of ``match`` in the text columns (:data:`COLUMNS`), not the session key."""
    return "{" + " ".join(COLUMNS) + "} : " + match


_WEIGHTS = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
"""``bm25()``'s column weights: :data:`COLUMN_WEIGHTS`, and none for the session key."""


def _bounded_search(
    conn: Connection,
    words: list[str],
    matches: dict[str, float],
    rows: int,
    session_key: str | None,
    where: MessageFilter,
    limit: int,
) -> list[tuple[int, float]]:
    """FTS5's weighted ``bm25()`` of :func:`_exact_search`, over each word's newest matches per column.

    The best candidates by a rough score (each word's weight, from ``matches`` of ``rows``, times the
    weights of the columns whose newest matches hold the row) are scored by FTS5 itself
    (:func:`_word_scores`), one word at a time: ``bm25()`` of several words is the sum of each word's, so
    a candidate scores what the exact path gives it. Where each word's newest matches in the searched
    sessions are all its matches there, the result is the exact path's. Two bounds keep the work small:
    a row holding only words with more matches than that, all older than their newest, is not a
    candidate; and a word whose rows between the oldest and the newest candidate would be more than
    :data:`SCANNED_ROWS` (a common word, when a rarer one brought old candidates) is scored by FTS5 in the
    candidates from its own newest matches on, and in the older ones by :func:`_older_scores` (nearly as
    FTS5 would: its share is small anyway, a word in one row of ten weighs at most ``log 9``).
    """
    lists: dict[str, tuple[float, list[list[int]]]] = {}  # word -> (idf, newest ids per column)
    for word in dict.fromkeys(words):
        per_column = [_column_ids(conn, column, word, session_key, where) for column in COLUMNS]
        if any(per_column):
            lists[word] = (bm25.idf(matches[word], rows), per_column)
    rough: dict[int, float] = defaultdict(float)
    for weight, per_column in lists.values():
        for column_weight, ids in zip(COLUMN_WEIGHTS, per_column, strict=True):
            for row_id in ids:
                rough[row_id] += weight * column_weight
    best = sorted(rough, key=lambda row_id: (rough[row_id], row_id), reverse=True)
    best = sorted(best[: max(fulltext.RERANK, 4 * limit)])
    scores: dict[int, float] = defaultdict(float)
    older: list[tuple[str, float, list[int]]] = []  # (word, idf, candidates older than its newest matches)
    totals: tuple[int, float] | None = None  # the table's rows and mean length, read once if needed
    for word in words:  # a word given twice counts twice, as in FTS5
        if word not in lists or not best:
            continue
        _, per_column = lists[word]
        scanned, old = best, []
        if matches[word] * (best[-1] - best[0] + 1) / max(rows, 1) > SCANNED_ROWS:
            cut = max((ids[-1] for ids in per_column if len(ids) >= fulltext.CANDIDATES), default=0)
            scanned = [row_id for row_id in best if row_id >= cut]
            old = [row_id for row_id in best if row_id < cut]
        found = _word_scores(conn, word, scanned, session_key)
        for row_id, score in found:
            scores[row_id] += score
        if old:
            totals = totals or fts5stats.totals(conn, TABLE)
            older.append((word, _weight(conn, word, found, totals), old))
    if older and totals is not None:
        for row_id, score in _older_scores(conn, older, totals[1]).items():
            scores[row_id] += score
    ranked = sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)
    return ranked[:limit]


def _older_scores(
    conn: Connection, older: list[tuple[str, float, list[int]]], average: float
) -> dict[int, float]:
    """Each word's ``bm25()`` share (its weight given) in the candidates older than its newest matches,
    computed here (:mod:`engine.search.fts5stats`: FTS5's lengths and ``average`` row length, the word's
    occurrences counted in the rows' text)."""
    ids = sorted({row_id for _, _, old in older for row_id in old})
    texts = _texts(conn, ids)
    lengths = fts5stats.lengths(conn, TABLE, ids)
    shares: dict[int, float] = defaultdict(float)
    for word, weight, old in older:
        for row_id in old:
            columns = texts.get(row_id, ("", "", ""))
            tf = sum(w * fts5stats.occurrences(word, t) for w, t in zip(COLUMN_WEIGHTS, columns, strict=True))
            if tf > 0:
                shares[row_id] += bm25.score([(weight, tf)], lengths.get(row_id, average), average)
    return shares


def _weight(conn: Connection, word: str, scored: list[tuple[int, float]], totals: tuple[int, float]) -> float:
    """The word's weight (idf) in ``bm25()``: read back from FTS5's score of one row (``scored``) whose
    occurrences ``highlight()`` counts, as FTS5 has just counted all its rows for it; else from a count of
    them (``totals``: the table's rows and mean length, :func:`engine.search.fts5stats.totals`). (A word
    used in one period is misjudged by the density of its newest matches.)"""
    rows, average = totals
    if scored:
        row_id, score = scored[0]
        expr = _in_columns(terms.quote(word))
        marked = ", ".join(f"highlight({TABLE}, {c}, ?, '')" for c in range(len(COLUMNS)))
        sql = f"SELECT {marked} FROM {TABLE} WHERE {TABLE} MATCH ? AND rowid = ?"
        row = conn.execute(sql, (*([_MARK] * len(COLUMNS)), expr, row_id)).first()
        tf = sum(w * (t or "").count(_MARK) for w, t in zip(COLUMN_WEIGHTS, row or (), strict=False))
        length = fts5stats.lengths(conn, TABLE, [row_id]).get(row_id)
        unit = bm25.score([(1.0, tf)], length, average) if tf > 0 and length is not None else 0.0
        if unit > 0:
            return score / unit
    return bm25.idf(_count(conn, word), rows)


_MARK = "\x02\ufdd0\x03"
"""Where ``highlight()`` marks an occurrence (two control characters around a Unicode noncharacter)."""


def _count(conn: Connection, word: str) -> int:
    """How many rows hold ``word`` in any of :data:`COLUMNS`, in any session (a scan of its list of rows
    without reading them)."""
    expr = _in_columns(terms.quote(word))
    return int(conn.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE {TABLE} MATCH ?", (expr,)).scalar_one())


def _texts(conn: Connection, ids: list[int]) -> dict[int, tuple[str, str, str]]:
    found: dict[int, tuple[str, str, str]] = {}
    for chunk, marks in in_chunks(ids):
        sql = f"SELECT rowid, prev, own, next FROM {TABLE} WHERE rowid IN ({marks})"
        for row in conn.execute(sql, chunk):
            found[int(row[0])] = (row[1] or "", row[2] or "", row[3] or "")
    return found


def _word_scores(
    conn: Connection, word: str, ids: list[int], session_key: str | None
) -> list[tuple[int, float]]:
    """``(row id, bm25())`` of the rows of ``ids`` (ascending) that hold ``word``, scored by FTS5 (the
    word's weight from all its rows, the rows' lengths in tokens, the column weights).

    One scan of the word's rows between the least and the greatest of the ids: FTS5 seeks a row id range
    once, where it would look each id of a list (``rowid IN``) up anew, and ``rowid + 0`` keeps the list
    a filter on the scanned rows, so that only those are scored.
    """
    expr = _in_columns(terms.quote(word))
    if session_key:  # the key's column weighs 0: it only narrows the scan
        expr += f" AND skey : {terms.quote(session_key)}"
    found: list[tuple[int, float]] = []
    for chunk, marks in in_chunks(ids, 990):  # fewer MATCH runs, within the 999 parameters of an older SQLite
        sql = (
            f"SELECT rowid, bm25({TABLE}, {_WEIGHTS}) FROM {TABLE} WHERE {TABLE} MATCH ? "
            f"AND rowid >= ? AND rowid <= ? AND rowid + 0 IN ({marks})"
        )
        found += [(int(r[0]), -float(r[1])) for r in conn.execute(sql, (expr, chunk[0], chunk[-1], *chunk))]
    return found


def _column_ids(
    conn: Connection, columns: str, word: str, session_key: str | None, where: MessageFilter
) -> list[int]:
    """Ids of the rows ``where`` admits whose ``columns`` hold ``word``, newest first, at most
    ``CANDIDATES``."""
    expr = "{" + columns + "} : " + terms.quote(word)
    if session_key:
        expr += f" AND skey : {terms.quote(session_key)}"
    filtered, params = fulltext.filter_sql(conn, where, "m")
    join = " JOIN messages m ON m.id = c.rowid" if filtered else ""
    sql = f"SELECT c.rowid FROM {TABLE} c{join} WHERE {TABLE} MATCH ?{filtered} ORDER BY c.rowid DESC LIMIT ?"
    return fulltext.ids_of(conn, sql, (expr, *params, fulltext.CANDIDATES))


def neighbour_ranking(conn: Connection, plain: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    """``(message id, score)`` of a plain keyword ranking with each message's neighbours taken in, best first:
    a message scores its own score plus :data:`NEIGHBOUR_WEIGHTS` times those of its session's previous and
    next turns (a message that matched nothing itself can enter through a neighbour).

    The caller filters the result by scope and time as it does the plain ranking.
    """
    own = dict(plain)
    if not own:
        return []
    before, after = NEIGHBOUR_WEIGHTS
    scores: dict[int, float] = defaultdict(float)
    for row_id, score in own.items():
        scores[row_id] += score
    for row_id, (prev_id, next_id) in _neighbour_ids(conn, list(own)).items():
        if next_id is not None and before:
            scores[next_id] += before * own[row_id]  # this message is the next one's previous turn
        if prev_id is not None and after:
            scores[prev_id] += after * own[row_id]
    return sorted(scores.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)


def _neighbour_ids(conn: Connection, ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
    """Each message's previous and next message ids in its session (``None`` at either end)."""
    found: dict[int, tuple[int | None, int | None]] = {}
    for chunk, marks in in_chunks(ids):
        sql = (
            "SELECT m.id, "
            "(SELECT p.id FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
            "ORDER BY p.id DESC LIMIT 1), "
            "(SELECT n.id FROM messages n WHERE n.session_id = m.session_id AND n.id > m.id "
            "ORDER BY n.id LIMIT 1) "
            f"FROM messages m WHERE m.id IN ({marks})"
        )
        for row in conn.execute(sql, tuple(chunk)):
            found[int(row[0])] = (
                None if row[1] is None else int(row[1]),
                None if row[2] is None else int(row[2]),
            )
    return found
