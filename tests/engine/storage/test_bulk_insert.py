"""``engine.storage.bulk.insert_rows``: rows in few statements, in order, within the parameter limit."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from engine.storage import bulk
from engine.storage.sql import Connection


@pytest.fixture
def conn() -> Iterator[Connection]:
    raw = sqlite3.connect(":memory:", isolation_level=None)
    raw.execute("BEGIN")
    connection = Connection(raw)
    connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT, b INTEGER)")
    connection.execute("CREATE VIRTUAL TABLE f USING fts5(a, content='t', content_rowid='id')")
    connection.execute("CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN INSERT INTO f(rowid, a) VALUES (new.id, new.a); END")  # fmt: skip
    yield connection
    raw.close()


def statements(conn: Connection) -> list[str]:
    """The statements run on ``conn`` from now on."""
    seen: list[str] = []
    run = conn.execute

    def counted(sql: str, params: Any = None) -> Any:
        seen.append(sql)
        return run(sql, params)

    conn.execute = counted  # type: ignore[method-assign]
    return seen


def test_rows_go_in_order_in_one_statement(conn: Connection) -> None:
    seen = statements(conn)
    rows = [(f"word{i}", i) for i in range(50)]
    bulk.insert_rows(conn, "INSERT INTO t(a, b) VALUES", rows)
    assert len(seen) == 1
    assert conn.execute("SELECT id, a, b FROM t ORDER BY id").all() == [
        (i + 1, a, b) for i, (a, b) in enumerate(rows)
    ]
    assert conn.execute("SELECT rowid FROM f WHERE f MATCH 'word42'").all() == [(43,)]


def test_the_parameter_limit_splits_the_rows(conn: Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bulk, "_variable_limit", lambda _: 5)  # two rows of two values per statement
    seen = statements(conn)
    bulk.insert_rows(conn, "INSERT INTO t(a, b) VALUES", [("x", 1), ("y", 2), ("z", 3)])
    assert len(seen) == 2
    assert conn.execute("SELECT a, b FROM t ORDER BY id").all() == [("x", 1), ("y", 2), ("z", 3)]


def test_nothing_to_insert_runs_nothing(conn: Connection) -> None:
    seen = statements(conn)
    bulk.insert_rows(conn, "INSERT INTO t(a, b) VALUES", [])
    assert seen == []


def test_the_limit_is_the_connections(conn: Connection) -> None:
    assert bulk._variable_limit(conn) >= 999
