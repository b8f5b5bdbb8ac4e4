"""Write ``engine/storage/frozen_ddl.py``: every migration's ``CREATE`` and ``ALTER`` statements, as
SQLAlchemy compiles them (sqlite dialect) for the SQLModel classes of each part's ``tables`` module.

Usage: ``.venv/bin/python -m scripts.freeze_ddl`` after changing a class or :data:`HISTORY` (``--check``
only says whether the file is up to date). ``tests/engine/storage/test_schema.py`` fails until it is.

The classes describe today's schema; :data:`HISTORY` says which migration made each table and which
added each later column, so a migration's frozen statements stay what it ran: a table's ``CREATE``
leaves out the columns a later entry adds, and that entry's ``ALTER TABLE … ADD COLUMN`` is the
column as the class compiles it. A new table or column is a new entry at the end (and a new migration in
``engine/database.py`` that runs it); an entry already recorded in users' databases never changes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateColumn, CreateIndex, CreateTable
from sqlmodel import SQLModel

from engine.errormemory.tables import ErrorRecordRow, ErrorVectorGeneration, ErrorVectorRow
from engine.llm.tables import UsageRow
from engine.semantic.tables import EmbedQueueRow, PassageRow, VectorRow
from engine.sessions.tables import (
    ChangeRow,
    DeviceRow,
    ForgetIntentRow,
    ForgottenRow,
    MessageBigramsRow,
    MessageGidRow,
    MessageMeta,
    MessageRow,
    SessionRow,
    SettingRow,
    UnsettledRow,
)
from engine.storage.tables import MigrationRow
from engine.sync.tables import SyncAppliedRow, SyncReceivedRow, SyncStateRow, SyncTitleRow
from scripts.retired_tables import SyncTombstoneRow, TombstoneRow

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "engine" / "storage" / "frozen_ddl.py"
COMMAND = ".venv/bin/python -m scripts.freeze_ddl"
LINE_LENGTH = 110
"""``ruff``'s line length (pyproject.toml): a statement that fits stays on one line."""


@dataclass(frozen=True)
class Created:
    """Tables a migration creates (``ddl.create_missing``), frozen as ``constant``."""

    constant: str
    migration: str
    models: Sequence[type[SQLModel]]


@dataclass(frozen=True)
class Added:
    """Columns a migration adds to an existing table (``ddl.add_missing``), frozen as ``constant``."""

    constant: str
    migration: str
    model: type[SQLModel]
    columns: Sequence[str]


@dataclass(frozen=True)
class Dropped:
    """Tables a migration drops (by hand: ``DROP TABLE``); their classes stay in
    :mod:`scripts.retired_tables` so the statements of the migration that made them stay what it ran."""

    migration: str
    tables: Sequence[str]


HISTORY: tuple[Created | Added | Dropped, ...] = (
    Created("MIGRATIONS_TABLE", "the migration runner, before any step", (MigrationRow,)),
    Created("M001_INITIAL", "m001_initial", (MessageRow, MessageMeta, SessionRow, SettingRow)),
    Created("M002_VECTORS", "m002_vectors", (VectorRow, EmbedQueueRow)),
    Created(
        "M003_ERROR_MEMORY", "m003_error_memory", (ErrorRecordRow, ErrorVectorRow, ErrorVectorGeneration)
    ),
    Created("M004_USAGE", "m004_usage", (UsageRow,)),
    Created("M005_CJK_BIGRAMS", "m005_cjk_bigrams", (MessageBigramsRow,)),
    Added("M009_SESSION_TITLES", "m009_session_titles", SessionRow, ("title", "title_source")),
    Added("M010_REPLAYED_ROWS", "m010_replayed_rows", MessageMeta, ("replayed_from", "replayed_to")),
    Created("M012_GLOBAL_IDS", "m012_global_ids", (DeviceRow, MessageGidRow, ChangeRow, TombstoneRow)),
    Created(
        "M013_SYNC",
        "m013_sync",
        (SyncStateRow, SyncAppliedRow, SyncTombstoneRow, SyncReceivedRow, SyncTitleRow),
    ),
    Created("M014_FORGET_RECORDS", "m014_forget_records", (ForgottenRow, ForgetIntentRow, UnsettledRow)),
    Added("M015_ONE_TOMBSTONE_TABLE", "m015_one_tombstone_table", ForgottenRow, ("scope", "cause", "synced")),
    Dropped("m015_one_tombstone_table", ("tombstones", "sync_tombstones")),
    Created("M016_PASSAGES", "m016_passages", (PassageRow,)),
)
"""Which migration made each table and added each later column, in the order they were recorded."""


def dropped() -> set[str]:
    """The tables a :class:`Dropped` entry names."""
    return {table for entry in HISTORY if isinstance(entry, Dropped) for table in entry.tables}


def models() -> list[type[SQLModel]]:
    """Every class :data:`HISTORY` creates and no later entry drops: the tables of a fresh home (FTS5
    tables aside)."""
    gone = dropped()
    return [
        model
        for entry in HISTORY
        if isinstance(entry, Created)
        for model in entry.models
        if str(_table(model).name) not in gone
    ]


def _table(model: type[SQLModel]) -> Any:
    return model.__table__  # type: ignore[attr-defined]


def _added_later() -> dict[str, set[str]]:
    """Each table's columns an :class:`Added` entry adds."""
    later: dict[str, set[str]] = {}
    for entry in HISTORY:
        if isinstance(entry, Added):
            later.setdefault(str(_table(entry.model).name), set()).update(entry.columns)
    return later


def created(model: type[SQLModel], without: Sequence[str] = ()) -> list[str]:
    """The statements that create ``model``'s table (leaving out the columns ``without``), then its
    indexes by name, each ``IF NOT EXISTS``."""
    dialect = sqlite.dialect()
    table = _table(model)
    create = CreateTable(table)
    create.columns = [c for c in create.columns if c.element.name not in without]
    made = [str(create.compile(dialect=dialect))]
    made += [
        str(CreateIndex(index, if_not_exists=True).compile(dialect=dialect))
        for index in sorted(table.indexes, key=lambda i: str(i.name))
    ]
    return made


def added(model: type[SQLModel], column: str) -> str:
    """The statement that adds ``column`` of ``model``'s table to an existing one."""
    table = _table(model)
    spec = CreateColumn(table.c[column]).compile(dialect=sqlite.dialect())
    return f"ALTER TABLE {table.name} ADD COLUMN {spec}"


def frozen() -> dict[str, list[tuple[str, ...]]]:
    """Each constant of :data:`HISTORY` and what it holds: (table, statements…) or (table, column, statement)."""
    later = _added_later()
    out: dict[str, list[tuple[str, ...]]] = {}
    for entry in HISTORY:
        if isinstance(entry, Created):
            out[entry.constant] = [
                (str(_table(m).name), *created(m, sorted(later.get(str(_table(m).name), ()))))
                for m in entry.models
            ]
        elif isinstance(entry, Added):
            name = str(_table(entry.model).name)
            out[entry.constant] = [(name, c, added(entry.model, c)) for c in entry.columns]
    return out


def _literal(value: str) -> str:
    """``value`` as a Python literal in the quotes ``ruff format`` prefers (double, unless it holds some)."""
    if '"' in value and "'" not in value:
        return repr(value)  # single quotes
    return json.dumps(value, ensure_ascii=False)


def _string(value: str, indent: str) -> str:
    """``value`` as one literal if it fits on a line, else implicitly concatenated literals, one per SQL
    line (both as ``ruff format`` leaves them)."""
    if len(indent) + len(_literal(value)) + 1 <= LINE_LENGTH:
        return f"{indent}{_literal(value)},\n"
    body = "".join(f"{indent}    {_literal(part)}\n" for part in value.splitlines(keepends=True))
    return f"{indent}(\n{body}{indent}),\n"


def render() -> str:
    """The text of ``engine/storage/frozen_ddl.py``."""
    out = [
        '"""Every migration\'s ``CREATE`` and ``ALTER`` statements, frozen as text. GENERATED: do not edit.\n\n'
        f"Written by ``{COMMAND}`` from the SQLModel classes (each part's ``tables`` module)\n"
        "and the history in that script: a table's ``CREATE`` leaves out the columns a later migration adds.\n"
        "The migrations run these through :mod:`engine.storage.ddl`, so no command loads SQLModel.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from engine.storage.ddl import Column, Table\n"
    ]
    entries = {entry.constant: entry for entry in HISTORY if not isinstance(entry, Dropped)}
    for constant, rows in frozen().items():
        entry = entries[constant]
        kind = "Table" if isinstance(entry, Created) else "Column"
        lines = [f"\n{constant}: list[{kind}] = [\n"]
        for row in rows:
            lines.append("    (\n")
            for name in row[:-1] if kind == "Column" else row[:1]:
                lines.append(f"        {_literal(name)},\n")
            if kind == "Table":
                lines.append("        [\n")
                lines += [_string(statement, " " * 12) for statement in row[1:]]
                lines.append("        ],\n")
            else:
                lines.append(_string(row[-1], " " * 8))
            lines.append("    ),\n")
        what = "tables" if kind == "Table" else "columns"
        lines.append(f']\n"""The {what} of {entry.migration}."""\n')
        out.append("".join(lines))
    return "".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only say whether the file is up to date")
    args = parser.parse_args(argv)
    text = render()
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if args.check:
        print(f"{TARGET.relative_to(ROOT)} is {'up to date' if current == text else 'out of date'}")
        return 0 if current == text else 1
    if current != text:
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET.relative_to(ROOT)}")
    else:
        print(f"{TARGET.relative_to(ROOT)} was up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
