"""Keyword search over each message read between its neighbours (the keyword side of hybrid search).

An answer often only makes sense with the turns around it: "Yes, last Tuesday!" holds the evidence, the
turn before holds the words a search uses, and the turn after often names what was just said. The table
``context_fts`` (FTS5, ``porter unicode61 remove_diacritics 2``; rowid = message id) keeps each message in
three columns, ``prev`` (the session's message before it), ``own`` and ``next`` (the message after it),
each as ``sender: content``, plus the session key. A search ranks by BM25 with the column weights of
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
from engine.search import bm25, fulltext, terms
from engine.search.query import Query
from engine.sessions import archive
from engine.storage import fts
from engine.storage.sql import Connection

TABLE = "context_fts"
COLUMNS = ("prev", "own", "next")
COLUMN_WEIGHTS = (0.5, 1.0, 0.5)
"""BM25 weights of ``prev``, ``own`` and ``next`` (set by ``bench/retrieval.py --sweep``)."""

NEIGHBOUR_WEIGHTS = (0.5, 0.0)
"""What a message gains of the plain keyword score of its previous and of its next turn (CJK queries; set
by ``bench/retrieval.py --sweep``: the next turn's share only lowered hit@1)."""

EXACT_MATCHES = 20_000
"""Up to this many matching rows (of all the words, in all sessions), FTS5 ranks them all (~25 ms)."""
BATCH = 2000
"""Rows written per statement when the whole archive is indexed."""

_INSERT = f"INSERT OR REPLACE INTO {TABLE}(rowid, prev, own, next, skey) VALUES (?, ?, ?, ?, ?)"


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
        own = own_text(sender or "", content)
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
    return None if row is None else (int(row[0]), own_text(row[1] or "", row[2]))


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
        session, own = message.session, own_text(message.sender, message.content)
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
    as in :mod:`engine.search.fulltext`.

    FTS5's ``bm25()`` scores every row that matches any word, in any session: cheap for rare words, about
    a second for a word in half of a million messages. So each word's matches are counted first (its
    newest :data:`~engine.search.fulltext.CANDIDATES`, estimated from their density beyond that); up to
    :data:`EXACT_MATCHES` in all, FTS5 ranks exactly, else :func:`_bounded_search` ranks the newest
    candidates the same way (:mod:`engine.search.bm25`).
    """
    words = query.words
    if not words:
        return []
    everywhere = fulltext.RowCounter(conn, fulltext.Bounds())
    matches = sum(
        everywhere.matches(_column_ids(conn, " ".join(COLUMNS), word, None, EVERY_MESSAGE)) for word in words
    )
    if matches <= EXACT_MATCHES:
        return _exact_search(conn, words, session_key, where, limit)
    return _bounded_search(conn, words, session_key, session_id, where, limit)


def _exact_search(
    conn: Connection, words: list[str], session_key: str | None, where: MessageFilter, limit: int
) -> list[tuple[int, float]]:
    expr = "{" + " ".join(COLUMNS) + "} : (" + " OR ".join(terms.quote(w) for w in words) + ")"
    if session_key:
        expr += f" AND skey : {terms.quote(session_key)}"
    weights = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
    filtered, params = fulltext.filter_sql(conn, where, "m")
    join = " JOIN messages m ON m.id = c.rowid" if filtered else ""
    sql = (
        f"SELECT c.rowid, bm25({TABLE}, {weights}) AS rank FROM {TABLE} c{join} WHERE {TABLE} MATCH ?"
        f"{filtered} ORDER BY rank LIMIT ?"
    )
    return [(int(r[0]), -float(r[1])) for r in conn.execute(sql, (expr, *params, limit))]


def _bounded_search(
    conn: Connection,
    words: list[str],
    session_key: str | None,
    session_id: str | None,
    where: MessageFilter,
    limit: int,
) -> list[tuple[int, float]]:
    """FTS5's weighted BM25 over each word's newest matches per column (see :func:`search`).

    A word's weight comes from its lists (exact below the cap, estimated from their density above it);
    the best candidates are loaded and scored as FTS5 would, with each column counting once per word
    (times its weight) and the row's length in characters. A candidate older than a word's newest
    matches is checked for that word in its text.
    """
    counter = fulltext.RowCounter(conn, fulltext.Bounds(session_key=session_key, session_id=session_id))
    total = counter.rows_from(0)
    lists: list[tuple[str, float, list[list[int]]]] = []  # (word, idf, newest ids per column)
    for word in words:
        per_column = [_column_ids(conn, column, word, session_key, where) for column in COLUMNS]
        matched = set().union(*per_column)
        if not matched:
            continue
        df = max([float(len(matched)), *(counter.matches(ids) for ids in per_column)])
        lists.append((word.casefold(), bm25.idf(df, total), per_column))
    rough: dict[int, float] = defaultdict(float)
    for _, weight, per_column in lists:
        for column_weight, ids in zip(COLUMN_WEIGHTS, per_column, strict=True):
            for row_id in ids:
                rough[row_id] += weight * column_weight
    best = sorted(rough, key=lambda row_id: (rough[row_id], row_id), reverse=True)
    texts = _texts(conn, best[: max(fulltext.RERANK, 4 * limit)])
    if not texts:
        return []
    average = sum(sum(len(t) for t in columns) for columns in texts.values()) / len(texts) or 1.0
    members = [
        (word, weight, [set(ids) for ids in per_column], per_column) for word, weight, per_column in lists
    ]
    scored: list[tuple[int, float]] = []
    for row_id, columns in texts.items():
        held: list[tuple[float, float]] = []
        for folded, weight, sets, per_column in members:
            tf = 0.0
            for c, (column_weight, text_c) in enumerate(zip(COLUMN_WEIGHTS, columns, strict=True)):
                older = len(per_column[c]) >= fulltext.CANDIDATES and row_id < per_column[c][-1]
                if row_id in sets[c] or (older and folded in text_c.casefold()):
                    tf += column_weight
            held.append((weight, tf))
        scored.append((row_id, bm25.score(held, sum(len(t) for t in columns), average)))
    scored.sort(key=lambda pair: (pair[1], pair[0]), reverse=True)
    return scored[:limit]


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


def _texts(conn: Connection, ids: list[int]) -> dict[int, tuple[str, str, str]]:
    found: dict[int, tuple[str, str, str]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT rowid, prev, own, next FROM {TABLE} WHERE rowid IN ({marks})"
        for row in conn.execute(sql, tuple(chunk)):
            found[int(row[0])] = (row[1] or "", row[2] or "", row[3] or "")
    return found


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
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
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
