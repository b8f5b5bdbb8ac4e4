"""Many rows in few INSERT statements (:func:`insert_rows`), for tables that FTS5 triggers follow.

A statement that fires a trigger runs in a statement savepoint, and FTS5 writes its pending index data
to a new segment at every savepoint. An ``executemany`` of N rows is N statements: N one-row segments,
and FTS5 merges them again and again (measured: ~56 µs per row into a trigram table). One INSERT with
many ``VALUES`` rows is one statement: one segment per statement (~11 µs per row).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from engine.storage.sql import Connection

MAX_ROWS = 5000
"""Rows per statement at most (the statement's text grows with them; beyond this the gain is nil)."""


def insert_rows(conn: Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """Run ``sql`` (``INSERT INTO t(a, b) VALUES``, without the values) for ``rows``, in as few statements
    as the connection's bound-parameter limit allows, in order: rowids are given as ``executemany``
    would give them."""
    if not rows:
        return
    width = len(rows[0])
    per = max(1, min(MAX_ROWS, _variable_limit(conn) // width))
    marks = "(" + ", ".join("?" * width) + ")"
    for start in range(0, len(rows), per):
        chunk = rows[start : start + per]
        values = [value for row in chunk for value in row]
        conn.execute(f"{sql} {', '.join([marks] * len(chunk))}", tuple(values))


def _variable_limit(conn: Connection) -> int:
    """The connection's limit on bound parameters per statement."""
    return int(conn.raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))
