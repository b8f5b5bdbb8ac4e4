"""The connection every part of the engine writes SQL through: a thin layer over ``sqlite3``.

The engine's modules run plain SQL on the connection :class:`engine.storage.store.Store` hands them, in
the store's transaction, in one call form:

    conn.execute("SELECT content FROM messages WHERE session_id = ? AND id > ?", (session, after))

a plain string with positional ``?`` parameters in a tuple; a list of tuples runs the statement once for
each (``executemany``). Positional, not ``:name``, because it is sqlite3's own (qmark) style, passed
through untouched; because most statements already used it (the bulk inserts, the FTS helpers, the hot
paths); and because bulk rows are tuples already (:mod:`engine.storage.bulk` builds multi-row
``VALUES (?, ?), (?, ?)`` statements from them). A value used twice is passed twice.

A call returns a :class:`Result` (``first``, ``one``, ``all``, ``scalar``, ``scalar_one``, ``rowcount`` …);
rows are plain tuples. SQLite's message about a damaged file can itself be garbled (a table name read
from a damaged page); Python then raises ``UnicodeDecodeError`` instead of the SQLite error, which
:func:`readable_errors` turns back into the damage it reports. Nothing here imports SQLAlchemy: a command
that only reads or appends never loads it (its import alone costs more than the rest of a command).
SQLModel describes the schema; the migrations run the statements compiled from it, frozen as text
(:mod:`engine.storage.ddl`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

Params = Sequence[Any] | None
"""One tuple of ``?`` values, or a list of tuples (the statement runs once for each), or None."""

IN_CHUNK = 500
"""The most values one ``IN (?, …)`` list takes (:func:`in_chunks`): within the 999 parameters an older
SQLite allows a statement, with room for the statement's other parameters."""

_Value = TypeVar("_Value")


def in_chunks(values: Sequence[_Value], size: int = IN_CHUNK) -> Iterator[tuple[tuple[_Value, ...], str]]:
    """``values`` in slices of at most ``size``, each with the ``?,?,…`` marks of its ``IN (…)`` list:

    for chunk, marks in in_chunks(ids):
        conn.execute(f"SELECT … WHERE id IN ({marks})", chunk)
    """
    for start in range(0, len(values), size):
        chunk = tuple(values[start : start + size])
        yield chunk, ",".join("?" * len(chunk))


SQLITE_FAILURES = (sqlite3.Error, UnicodeDecodeError)
"""What a call into SQLite raises when it fails, for code that reads a damaged file with ``sqlite3`` itself
(a garbled message raises ``UnicodeDecodeError``, see :func:`readable_errors`)."""


@contextmanager
def readable_errors() -> Iterator[None]:
    """Around a call into SQLite: a ``UnicodeDecodeError`` (SQLite's error message was not UTF-8: garbled
    text from a damaged page) becomes the ``sqlite3.DatabaseError`` it stands for."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise sqlite3.DatabaseError(
            f"database disk image is malformed (SQLite's own message was garbled: {exc.reason})"
        ) from exc


class Result:
    """The rows (or the row count) of one statement."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def __iter__(self) -> Iterator[Any]:
        with readable_errors():
            yield from self._cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    def fetchone(self) -> Any:
        with readable_errors():
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        with readable_errors():
            return self._cursor.fetchall()

    def all(self) -> list[Any]:
        return self.fetchall()

    def first(self) -> Any:
        """The first row, or None."""
        row = self.fetchone()
        self._cursor.close()
        return row

    def one(self) -> Any:
        """The only row; LookupError when there is none or more than one."""
        with readable_errors():
            rows = self._cursor.fetchmany(2)
        self._cursor.close()
        if len(rows) != 1:
            raise LookupError(f"expected one row, got {'none' if not rows else 'more'}")
        return rows[0]

    def scalar(self) -> Any:
        """The first column of the first row, or None."""
        row = self.first()
        return None if row is None else row[0]

    def scalar_one(self) -> Any:
        """The first column of the only row."""
        return self.one()[0]

    def scalars(self) -> _Scalars:
        return _Scalars(self)


class _Scalars:
    def __init__(self, result: Result) -> None:
        self._result = result

    def all(self) -> list[Any]:
        return [row[0] for row in self._result]


class Connection:
    """One SQLite connection in a transaction the store opened (see :mod:`engine.storage.store`)."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw
        self._savepoints = 0

    def execute(self, sql: str, params: Params = None) -> Result:
        """Run SQL with ``?`` parameters: a tuple of values, or a list of tuples (once for each)."""
        with readable_errors():
            return self._step(sql, params)

    def _step(self, sql: str, params: Params) -> Result:
        if params is None:
            return Result(self.raw.execute(sql))
        if isinstance(params, dict):
            raise TypeError("SQL parameters are positional: pass a tuple of values for the ? marks")
        if _is_many(params):
            return Result(self.raw.executemany(sql, params))
        return Result(self.raw.execute(sql, tuple(params)))

    def cursor(self) -> sqlite3.Cursor:
        """The DB-API cursor, for a hot loop where even the result object costs."""
        return self.raw.cursor()

    @contextmanager
    def begin_nested(self) -> Iterator[None]:
        """A savepoint: released when the block ends, rolled back (and the error raised) when it fails."""
        self._savepoints += 1
        name = f"sp{self._savepoints}"
        self.raw.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            self.raw.execute(f"ROLLBACK TO {name}")
            self.raw.execute(f"RELEASE {name}")
            raise
        else:
            self.raw.execute(f"RELEASE {name}")
        finally:
            self._savepoints -= 1


def _is_many(params: Sequence[Any]) -> bool:
    """A list of parameter tuples (executemany), not one tuple of values."""
    if isinstance(params, tuple | str | bytes) or not isinstance(params, Sequence):
        return False
    return bool(params) and isinstance(params[0], tuple | list)
