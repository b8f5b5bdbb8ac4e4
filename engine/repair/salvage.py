"""Reading back what a damaged SQLite file still holds, row by row (for ``memtray repair``).

A read of many rows fails as soon as it meets one damaged page, or worse, stops there without an error;
the rows around it are usually intact. So a table is read by rowid ranges: a range that fails is split
in two and each half read again, down to single rows, and a row that fails alone is skipped; a range
that reads but returns fewer rows than it spans has each missing rowid asked for alone (a deleted row
leaves a gap in the ids; a damaged page may end a range read early, while a lookup of one row goes
around it). Text is decoded here, strictly: a row whose text is not UTF-8 (garbled bytes on a damaged
page) is skipped too. The tables read must hold text and numbers only (no BLOB columns).

How many rows there were is taken from the table itself when its count still reads, else from its
largest rowid (``sqlite_sequence`` for an AUTOINCREMENT table, else ``MAX(rowid)``), an upper bound since
deleted rows leave gaps in the ids; the report says which.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from engine.storage.sql import SQLITE_FAILURES

log = logging.getLogger("memtray.repair")

WINDOW = 1000
"""Rowids read per query while the file reads well."""
MAX_EMPTY_WINDOWS = 20
"""Without a known largest rowid, reading stops after this many windows in a row gave no row."""

Value = str | int | float | bytes | None


@dataclass(frozen=True)
class Salvaged:
    """The rows read back from one table.

    Attributes:
        rows: ``(rowid, *columns)`` of every row that read, in rowid order, text decoded.
        expected: how many rows the table held (exact when ``exact``, else its largest rowid: at most).
        exact: whether ``expected`` is the table's own count.
        skipped: rows (or rowids) that failed to read, alone, or whose text was not UTF-8.
    """

    rows: list[tuple[Value, ...]]
    expected: int
    exact: bool
    skipped: int


def read_table(source: sqlite3.Connection, table: str, columns: Sequence[str]) -> Salvaged:
    """Every row of ``table`` that still reads (see the module docstring); ``source`` returns bytes."""
    source.text_factory = bytes
    count = _scalar(source, f"SELECT COUNT(*) FROM {table}")
    largest = max(
        _scalar(source, "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)) or 0,
        _scalar(source, f"SELECT MAX(rowid) FROM {table}") or 0,
    )
    reader = _Reader(source, f"SELECT rowid, {', '.join(columns)} FROM {table}")
    if largest:
        for low in range(1, largest + 1, WINDOW):
            reader.window(low, min(largest, low + WINDOW - 1))
        reader.after(largest)  # rows above the recorded largest (a damaged sqlite_sequence)
    else:
        reader.after(0)
    rows = reader.rows
    expected, exact = (count, True) if count is not None else (max(largest, len(rows)), False)
    if reader.skipped:
        log.warning(
            "salvage of %s: %d rows read back, %d could not be read (of %s%d)",
            table,
            len(rows),
            reader.skipped,
            "" if exact else "at most ",
            expected,
        )
    return Salvaged(rows, expected, exact, reader.skipped)


def _scalar(source: sqlite3.Connection, sql: str, args: tuple[Value, ...] = ()) -> int | None:
    try:
        row = source.execute(sql, args).fetchone()
    except SQLITE_FAILURES:
        return None
    return int(row[0]) if row is not None and isinstance(row[0], int) else None


class _Reader:
    """Reads rowid ranges of one query, splitting a range that fails (see :func:`read_table`)."""

    def __init__(self, source: sqlite3.Connection, select: str) -> None:
        self._source = source
        self._range = f"{select} WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
        self._one = f"{select} WHERE rowid = ?"
        self._after = f"{select} WHERE rowid > ? ORDER BY rowid LIMIT {WINDOW}"
        self.rows: list[tuple[Value, ...]] = []
        self.skipped = 0

    def window(self, low: int, high: int, *, count_failures: bool = True) -> int:
        """Read rowids ``low..high`` (in order); return how many rows came back.

        ``count_failures``: whether a rowid that fails alone counts as a skipped row (not when the ids
        read are a guess beyond the table's known end).
        """
        pending = [(low, high)]
        found: dict[int, tuple[Value, ...]] = {}
        while pending:
            lo, hi = pending.pop()
            try:
                batch = self._source.execute(self._range, (lo, hi)).fetchall()
            except SQLITE_FAILURES:
                if lo == hi:  # a range of one row can fail where a lookup of it does not
                    alone = self._single(lo, count_failures)
                    if alone is not None:
                        found[lo] = alone
                    continue
                middle = (lo + hi) // 2
                pending.extend([(middle + 1, hi), (lo, middle)])
                continue
            for row in batch:
                decoded = _decoded(row)
                if decoded is not None and isinstance(row[0], int) and lo <= row[0] <= hi:
                    found.setdefault(row[0], decoded)
            # A gap (a deleted row), a read that stopped early at a damaged page, or a garbled row: each
            # missing rowid is asked for alone, which goes around the damage when it can.
            for rowid in range(lo, hi + 1) if len(found) < hi - lo + 1 else ():
                if rowid not in found:
                    alone = self._single(rowid, count_failures)
                    if alone is not None:
                        found[rowid] = alone
        self.rows.extend(found[rowid] for rowid in sorted(found))
        return len(found)

    def _single(self, rowid: int, count_failures: bool) -> tuple[Value, ...] | None:
        try:
            rows = self._source.execute(self._one, (rowid,)).fetchall()
        except SQLITE_FAILURES:
            rows = None
        decoded = _decoded(rows[0]) if rows else None
        if decoded is None and rows != []:  # failed, or garbled (an empty answer: no such row)
            self.skipped += int(count_failures)
        return decoded

    def after(self, last: int) -> None:
        """Read every row above rowid ``last``, by windows past a failure, until the table ends."""
        empty = 0
        while empty < MAX_EMPTY_WINDOWS:
            try:
                batch = self._source.execute(self._after, (last,)).fetchall()
            except SQLITE_FAILURES:
                got = self.window(last + 1, last + WINDOW, count_failures=False)
                last += WINDOW
                empty = 0 if got else empty + 1
                continue
            if not batch:
                return
            top = max(int(row[0] or 0) for row in batch)
            self.window(last + 1, max(top, last + 1))
            last = max(top, last + 1)


def _decoded(row: tuple[Value, ...]) -> tuple[Value, ...] | None:
    """The row with its text decoded, or None when some text is not UTF-8 (garbled on a damaged page)."""
    try:
        return tuple(v.decode("utf-8") if isinstance(v, bytes) else v for v in row)
    except UnicodeDecodeError:
        return None
