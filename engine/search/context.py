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
from engine.search import bm25, fulltext, terms
from engine.search.query import Query
from engine.sessions import archive
from engine.storage import fts
from engine.storage.sql import Connection
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
SCORED = 2.0
"""Candidates scored by :func:`_bounded_search` per row asked for (at least ``fulltext.RERANK``)."""
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
    as in :mod:`engine.search.fulltext`. ``session_id`` is the caller's (it filters the result by it).

    FTS5's ``bm25()`` scores every row that matches any word, in any session: cheap for rare words, about
    a second for a word in half of a million messages. So each word's matches are counted first (its
    newest :data:`~engine.search.fulltext.CANDIDATES`, estimated from their density beyond that); up to
    :data:`EXACT_MATCHES` in all, FTS5 ranks exactly, else :func:`_bounded_search` ranks each word's
    newest candidates with the same scores (measured on LoCoMo forced onto that path: the same figures
    as the exact path, ``bench/README.md``).
    """
    words = query.words
    if not words:
        return []
    everywhere = fulltext.RowCounter(conn, fulltext.Bounds())
    newest = {word: _column_ids(conn, " ".join(COLUMNS), word, None, EVERY_MESSAGE) for word in words}
    if sum(everywhere.matches(newest[word]) for word in words) <= EXACT_MATCHES:
        return _exact_search(conn, words, session_key, where, limit)
    matches = {
        word: float(len(ids)) if len(ids) < fulltext.CANDIDATES else _count(conn, word)
        for word, ids in newest.items()
    }
    return _bounded_search(conn, words, matches, session_key, where, limit)


def _count(conn: Connection, word: str) -> float:
    """How many rows hold ``word`` in any of :data:`COLUMNS` (in any session): what ``bm25()`` weighs it
    by. A scan of the word's list of rows without reading them (~5 ms for a word in 100,000 rows): an
    estimate from the density of its newest matches misjudges a word used in one period far more (a
    project's name, the people of one conversation) and ranks below the exact path (``bench/README.md``)."""
    expr = "{" + " ".join(COLUMNS) + "} : " + terms.quote(word)
    return float(conn.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE {TABLE} MATCH ?", (expr,)).scalar_one())


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
    matches: dict[str, float],
    session_key: str | None,
    where: MessageFilter,
    limit: int,
) -> list[tuple[int, float]]:
    """FTS5's weighted ``bm25()`` of :func:`_exact_search`, over each word's newest matches per column.

    The best candidates by a rough score (each word's weight times the weights of the columns whose newest
    matches hold the row) are scored as FTS5 scores them: a word weighs by the rows of the whole table
    holding it (``matches``, counted: :func:`_count`); its frequency in a row is the weights of the
    columns summed over its occurrences, counted by FTS5 itself (:func:`_frequencies`, so a candidate
    older than a word's newest matches is not missed); the row's length and the mean length are FTS5's
    own token counts (:func:`_statistics`, :func:`_lengths`). Where each word's newest matches in the
    searched sessions are all its matches there, the result is the exact path's; else a row holding only
    words with more matches than that, all older than their newest, is not a candidate.
    """
    rows, average = _statistics(conn)
    lists: list[tuple[str, float, list[list[int]]]] = []  # (word, idf, newest ids per column)
    for word in words:
        per_column = [_column_ids(conn, column, word, session_key, where) for column in COLUMNS]
        if any(per_column):
            lists.append((word, bm25.idf(matches[word], rows), per_column))
    rough: dict[int, float] = defaultdict(float)
    for _, weight, per_column in lists:
        for column_weight, ids in zip(COLUMN_WEIGHTS, per_column, strict=True):
            for row_id in ids:
                rough[row_id] += weight * column_weight
    best = sorted(rough, key=lambda row_id: (rough[row_id], row_id), reverse=True)
    best = best[: max(fulltext.RERANK, int(SCORED * limit))]
    if not best:
        return []
    lengths = _lengths(conn, best)
    held: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for word, weight, per_column in lists:
        listed = set().union(*per_column)
        # a candidate holds the word if a column's newest matches list it, or may if it is older than them
        oldest = max((ids[-1] for ids in per_column if len(ids) >= fulltext.CANDIDATES), default=-1)
        older = [row_id for row_id in best if row_id not in listed and row_id < oldest]
        for row_id, tf in _frequencies(conn, word, [i for i in best if i in listed], older).items():
            held[row_id].append((weight, tf))
    scored = [
        (row_id, bm25.score(pairs, lengths.get(row_id, average), average)) for row_id, pairs in held.items()
    ]
    scored.sort(key=lambda pair: (pair[1], pair[0]), reverse=True)
    return scored[:limit]


def _varints(blob: bytes) -> list[int]:
    """The integers of an FTS5 record (SQLite's variable-length integers, big-endian, 7 bits a byte)."""
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


def _statistics(conn: Connection) -> tuple[int, float]:
    """The table's rows and their mean length in tokens (all columns), as ``bm25()`` reads them: the
    totals FTS5 keeps in its ``_data`` table (record 1: rows, then the tokens of each column)."""
    blob = conn.execute(f"SELECT block FROM {TABLE}_data WHERE id = 1").scalar()
    totals = _varints(bytes(blob)) if blob else []
    if not totals or totals[0] <= 0:
        return 1, 1.0
    return totals[0], (sum(totals[1:]) / totals[0]) or 1.0


def _lengths(conn: Connection, ids: list[int]) -> dict[int, float]:
    """Each row's length in tokens (all columns), from FTS5's ``_docsize`` table."""
    found: dict[int, float] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT id, sz FROM {TABLE}_docsize WHERE id IN ({marks})", tuple(chunk)):
            found[int(row[0])] = float(sum(_varints(bytes(row[1] or b""))))
    return found


_MARK = "\x02\ufdd0\x03"
"""Where ``highlight()`` marks an occurrence (two control characters around a Unicode noncharacter)."""


def _frequencies(conn: Connection, word: str, listed: list[int], older: list[int]) -> dict[int, float]:
    """The rows of ``listed`` (rows known to hold ``word``) and ``older`` (rows older than its newest
    matches, which may hold it) that hold it, each with the weights of the columns summed over the word's
    occurrences (``bm25()``'s frequency), counted by FTS5's ``highlight()``.

    The listed rows are found in one scan of the word's matches between the least and the greatest of
    them (``rowid + 0`` keeps their list a filter on the scanned rows, so ``highlight()`` reads only those):
    FTS5 seeks a row id range once, where it looks each id of a list (``rowid IN``) up anew. The older
    rows are looked up one by one that way, as a scan down to them would read most of a common word's rows.
    """
    expr = "{" + " ".join(COLUMNS) + "} : " + terms.quote(word)
    marked = ", ".join(f"highlight({TABLE}, {c}, ?, '')" for c in range(len(COLUMNS)))
    head = f"SELECT rowid, {marked} FROM {TABLE} WHERE {TABLE} MATCH ?"
    found: dict[int, float] = {}
    ordered = sorted(listed)
    for start in range(0, len(ordered), 2000):
        chunk = ordered[start : start + 2000]
        sql = f"{head} AND rowid >= ? AND rowid <= ? AND rowid + 0 IN ({','.join('?' * len(chunk))})"
        found.update(_counted(conn, sql, (*([_MARK] * len(COLUMNS)), expr, chunk[0], chunk[-1], *chunk)))
    for start in range(0, len(older), 500):
        chunk = older[start : start + 500]
        sql = f"{head} AND rowid IN ({','.join('?' * len(chunk))})"
        found.update(_counted(conn, sql, (*([_MARK] * len(COLUMNS)), expr, *chunk)))
    return found


def _counted(conn: Connection, sql: str, params: tuple[object, ...]) -> dict[int, float]:
    """``(rowid, highlighted columns...)`` rows as each row's weighted count of the marks."""
    found: dict[int, float] = {}
    for row in conn.execute(sql, params):
        tf = sum(w * (text or "").count(_MARK) for w, text in zip(COLUMN_WEIGHTS, row[1:], strict=True))
        if tf > 0:
            found[int(row[0])] = tf
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
