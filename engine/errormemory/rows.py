"""SQL on the ``error_memory`` table: insert, refresh, look up, delete, purge.

Every function takes an open connection; the caller owns the transaction (``Store.write()`` or
``Store.read()``). Expired rows (``expires_at <= now``) are never returned.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from engine.errormemory.records import ErrorRecord
from engine.storage.sql import Connection, in_chunks

_FIELDS = "num, id, tool_name, keywords, symptom, cause, action, outcome, created_at, expires_at"


def to_record(row: Sequence[object]) -> ErrorRecord:
    """A row selected with ``_FIELDS`` as a record (the leading ``num`` is dropped)."""
    _num, ident, tool, keywords, symptom, cause, action, outcome, created, expires = tuple(row)
    return ErrorRecord(
        id=str(ident),
        tool_name=str(tool),
        keywords=tuple(str(k) for k in json.loads(str(keywords))),
        symptom=str(symptom),
        cause=str(cause or ""),
        action=str(action),
        outcome=str(outcome),
        created_at=int(str(created)),
        expires_at=int(str(expires)),
    )


def by_dedupe(conn: Connection, key: str) -> tuple[int, ErrorRecord] | None:
    """The record with this duplicate key, expired or not, with its row number."""
    row = conn.execute(f"SELECT {_FIELDS} FROM error_memory WHERE dedupe = ?", (key,)).first()
    return None if row is None else (int(row[0]), to_record(row))


def dedupe_of(conn: Connection, num: int) -> str:
    """The duplicate key of the record in row ``num`` ("" when there is none)."""
    row = conn.execute("SELECT dedupe FROM error_memory WHERE num = ?", (num,)).first()
    return "" if row is None else str(row[0] or "")


def id_taken(conn: Connection, ident: str) -> bool:
    return conn.execute("SELECT 1 FROM error_memory WHERE id = ?", (ident,)).first() is not None


def insert(conn: Connection, record: ErrorRecord, dedupe: str) -> int:
    """Insert a record; return its row number."""
    result = conn.execute(
        "INSERT INTO error_memory(id, tool_name, keywords, symptom, cause, action, outcome, dedupe, "
        "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?)",
        (
            record.id,
            record.tool_name,
            json.dumps(list(record.keywords), ensure_ascii=False),
            record.symptom,
            record.cause,
            record.action,
            record.outcome,
            dedupe,
            record.created_at,
            record.expires_at,
        ),
    )
    return int(result.lastrowid or 0)


def update(conn: Connection, num: int, record: ErrorRecord) -> None:
    """Overwrite the mutable fields of a record (a duplicate write)."""
    conn.execute(
        "UPDATE error_memory SET keywords = ?, cause = ?, outcome = ?, expires_at = ? WHERE num = ?",
        (
            json.dumps(list(record.keywords), ensure_ascii=False),
            record.cause,
            record.outcome,
            record.expires_at,
            num,
        ),
    )


def refresh(conn: Connection, nums: Iterable[int], expires_at: int) -> None:
    """Push the expiry of these records to ``expires_at`` (a hit)."""
    params = [(expires_at, n) for n in nums]
    if params:
        conn.execute("UPDATE error_memory SET expires_at = ? WHERE num = ?", params)


def fetch(conn: Connection, nums: Sequence[int], now: int) -> dict[int, ErrorRecord]:
    """Live records by row number."""
    found: dict[int, ErrorRecord] = {}
    for chunk, marks in in_chunks([int(n) for n in nums]):
        sql = f"SELECT {_FIELDS} FROM error_memory WHERE num IN ({marks}) AND expires_at > ?"
        for row in conn.execute(sql, (*chunk, now)):
            found[int(row[0])] = to_record(row)
    return found


def by_prefix(conn: Connection, prefix: str, now: int, limit: int = 10) -> list[tuple[int, ErrorRecord]]:
    """Live records whose id starts with ``prefix`` (lower-case hex), at most ``limit``."""
    rows = conn.execute(
        f"SELECT {_FIELDS} FROM error_memory WHERE id >= ? AND id < ? AND expires_at > ? ORDER BY id LIMIT ?",
        (prefix, prefix + "g", now, limit),
    )
    return [(int(r[0]), to_record(r)) for r in rows]


def newest(
    conn: Connection, now: int, *, tool_name: str | None = None, limit: int = 50, offset: int = 0
) -> list[tuple[int, ErrorRecord]]:
    """Live records with their row numbers, newest first."""
    where = "expires_at > ?" + (" AND tool_name = ?" if tool_name else "")
    tool = (tool_name,) if tool_name else ()
    rows = conn.execute(
        f"SELECT {_FIELDS} FROM error_memory WHERE {where} ORDER BY created_at DESC, num DESC LIMIT ? OFFSET ?",
        (now, *tool, limit, offset),
    )
    return [(int(r[0]), to_record(r)) for r in rows]


def count(conn: Connection, now: int) -> int:
    value = conn.execute("SELECT count(*) FROM error_memory WHERE expires_at > ?", (now,))
    return int(value.scalar() or 0)


def delete(conn: Connection, num: int) -> None:
    conn.execute("DELETE FROM error_memory WHERE num = ?", (num,))


def any_expired(conn: Connection, now: int) -> bool:
    """Whether any record has expired (a purge would delete something)."""
    found = conn.execute("SELECT 1 FROM error_memory WHERE expires_at <= ? LIMIT 1", (now,))
    return found.first() is not None


def purge(conn: Connection, now: int) -> int:
    """Delete expired records (and, by cascade, their vectors); return how many."""
    result = conn.execute("DELETE FROM error_memory WHERE expires_at <= ?", (now,))
    return int(result.rowcount or 0)
