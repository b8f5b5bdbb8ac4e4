"""What FTS5's bm25() reads of a table, read in Python (engine.search.fts5stats)."""

from __future__ import annotations

import math
import sqlite3

from engine.search import bm25, fts5stats
from engine.storage.sql import Connection


def _table(rows: list[str]) -> Connection:
    raw = sqlite3.connect(":memory:")
    raw.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    raw.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", list(enumerate(rows, 1)))
    raw.commit()  # FTS5 writes its totals when the transaction ends
    return Connection(raw)


def test_varints_read_sqlites_variable_length_integers() -> None:
    assert fts5stats.varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]
    assert fts5stats.varints(bytes([0xFF] * 8 + [0x01])) == [(2**56 - 1) << 8 | 1]  # the ninth byte whole
    assert fts5stats.varints(b"") == []


def test_lengths_and_totals_give_fts5s_bm25() -> None:
    rows = ["the camping trip", "camping camping by the lake with friends", "nothing", "a long day " * 10]
    conn = _table(rows)
    count, average = fts5stats.totals(conn, "t")
    assert count == 4 and math.isclose(average, (3 + 7 + 1 + 30) / 4)
    assert fts5stats.lengths(conn, "t", [1, 2, 4]) == {1: 3.0, 2: 7.0, 4: 30.0}
    want = dict(conn.execute("SELECT rowid, -bm25(t) FROM t WHERE t MATCH 'camping'").all())
    lengths = fts5stats.lengths(conn, "t", [1, 2])
    weight = bm25.idf(2, count)
    for row_id, text in ((1, rows[0]), (2, rows[1])):
        tf = fts5stats.occurrences("camping", text)
        assert math.isclose(bm25.score([(weight, tf)], lengths[row_id], average), want[row_id], rel_tol=1e-9)


def test_occurrences_count_tokens_of_the_same_stem() -> None:
    assert fts5stats.occurrences("camping", "we went camping, camped, a campaign; decamping camp") == 3
    assert fts5stats.occurrences("lake", "lakes by the lake, not lakeside") == 2
    assert fts5stats.occurrences("memories", "a memory, two memories") == 2
    assert fts5stats.occurrences("don't", "i don't know, don't ask") == 2  # several tokens: as a phrase
    assert fts5stats.occurrences("memory", "nothing of the kind") == 0
