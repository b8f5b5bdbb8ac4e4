"""The SQLModel classes are the one description of today's schema, and every home ends with it.

Each part declares its tables in its own ``tables`` module (``engine/<part>/tables.py``: classes only,
never imported at run time). ``scripts/freeze_ddl.py`` compiles them into ``engine/storage/frozen_ddl.py``,
the statements the migrations run, and holds the history of which migration made each table and column.
These tests compile the classes (SQLAlchemy's ``CreateTable``/``CreateIndex``, sqlite dialect) into a
database of their own and compare its schema (``PRAGMA table_list``, ``table_info``, ``index_list``,
``index_xinfo``, ``foreign_key_list``, and whether the table is ``AUTOINCREMENT``) with the schema of a
fresh home, of the pre-layout home (``tests/fixtures/prelayout``) and of a home stopped after each
recorded migration, then opened by today's code.

The historical difference: before the classes described them, the migrations wrote some statements by
hand, and homes made then hold them: the ``CREATE`` of ``vectors``, ``embed_queue``, ``error_memory*``,
``usage`` and ``messages_cjk`` (the pre-layout home has them verbatim) and the ``ALTER`` of
``m009``/``m010`` (:data:`HAND_WRITTEN_ALTERS`: ``NOT NULL DEFAULT ...`` where SQLAlchemy writes
``DEFAULT ... NOT NULL``). They differ from the frozen statements in spelling only: the same PRAGMA
schema, which is what these tests compare.

How a developer adds a table (or a column):

1. Declare the class in the owning part's ``engine/<part>/tables.py`` (create it: tables only), each
   column with its type, ``NOT NULL``/default, key and indexes, and a one-line comment saying why it exists.
2. Add an entry at the end of ``HISTORY`` in ``scripts/freeze_ddl.py``:
   ``Created("M011_WHAT", "m011_what", (NewRow,))``, or ``Added(..., Model, ("column",))`` for a column.
3. Run ``.venv/bin/python -m scripts.freeze_ddl``: it writes the statements into ``engine/storage/frozen_ddl.py``.
4. Write the migration next to the tables (``ddl.create_missing(conn, frozen_ddl.M011_WHAT)``, or
   ``ddl.add_missing``) and append ``("m011_what", step)`` to ``MIGRATIONS`` in ``engine/database.py``.
5. Run ``tests/engine/storage/test_schema.py`` (and ``tests/engine/test_database.py``).
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel

from engine import Memory, database
from engine.embedders.hashing import HashEmbedder
from engine.storage import frozen_ddl
from engine.storage.store import Store
from scripts import freeze_ddl
from tests import rawdb

ROOT = Path(__file__).resolve().parents[3]
PRELAYOUT = ROOT / "tests" / "fixtures" / "prelayout"
SHADOWS = ("config", "content", "data", "docsize", "idx")
"""The suffixes of an FTS5 table's shadow tables."""

Schema = dict[str, dict[str, Any]]

HAND_WRITTEN_ALTERS = {
    "M009_SESSION_TITLES": [
        "ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE sessions ADD COLUMN title_source TEXT NOT NULL DEFAULT ''",
    ],
    "M010_REPLAYED_ROWS": [
        "ALTER TABLE message_meta ADD COLUMN replayed_from INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE message_meta ADD COLUMN replayed_to INTEGER NOT NULL DEFAULT 0",
    ],
}
"""What ``m009_session_titles`` and ``m010_replayed_rows`` ran before their statements were frozen from
the classes: homes migrated then hold these columns."""


def schema(conn: sqlite3.Connection) -> Schema:
    """Every table of the database but the FTS5 tables, their shadow tables and SQLite's own, described
    by its PRAGMAs: rowid and strictness, columns (name, declared type, NOT NULL, default, key position),
    indexes (key columns, order, collation; one SQLite makes for a UNIQUE or PRIMARY KEY constraint is
    named by its origin, not its number), foreign keys and ``AUTOINCREMENT``."""
    tables = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = {name for name, sql in tables if sql.upper().startswith("CREATE VIRTUAL TABLE")}
    skipped = virtual | {f"{v}_{suffix}" for v in virtual for suffix in SHADOWS}
    out: Schema = {}
    for name, sql in tables:
        if name in skipped or name.startswith("sqlite_"):
            continue
        indexes = []
        for _, index, unique, origin, partial in conn.execute(f"PRAGMA index_list({name})"):
            # each key column's name, descending or not, and collation
            keys = tuple(tuple(r[2:5]) for r in conn.execute(f"PRAGMA index_xinfo({index})") if r[5])
            indexes.append((index if origin == "c" else f"({origin})", unique, partial, keys))
        out[name] = {
            "kind": _kind(conn, name),
            "columns": [tuple(row[1:]) for row in conn.execute(f"PRAGMA table_info({name})")],
            "indexes": sorted(indexes),
            "foreign_keys": sorted(
                tuple(row[2:]) for row in conn.execute(f"PRAGMA foreign_key_list({name})")
            ),
            "autoincrement": "AUTOINCREMENT" in sql.upper(),
        }
    return out


def _kind(conn: sqlite3.Connection, name: str) -> tuple[int, int] | None:
    """``WITHOUT ROWID`` and ``STRICT`` (``PRAGMA table_list``, SQLite 3.37+; None on an older one)."""
    try:
        row = conn.execute(f"PRAGMA table_list({name})").fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[4]), int(row[5])


def schema_of(path: Path) -> Schema:
    conn = rawdb.connect(path)
    try:
        return schema(conn)
    finally:
        conn.close()


def assert_described(live: Schema, described: Schema) -> None:
    """``live`` is the classes' schema; a table without a class, or the reverse, is named."""
    assert sorted(live) == sorted(described), (
        f"tables without a class: {sorted(set(live) - set(described))}, classes without a table: "
        f"{sorted(set(described) - set(live))} (how to add a table: this module's docstring)"
    )
    for name in described:
        assert live[name] == described[name], f"{name} differs from its class"


@pytest.fixture(scope="module")
def described() -> Schema:
    """The schema the classes compile to (today's, every column included)."""
    conn = sqlite3.connect(":memory:")
    for model in freeze_ddl.models():
        for statement in freeze_ddl.created(model):
            conn.execute(statement)
    found = schema(conn)
    conn.close()
    return found


def test_the_frozen_statements_are_what_the_classes_compile() -> None:
    assert frozen_ddl.__file__ is not None
    written = Path(frozen_ddl.__file__).read_text(encoding="utf-8")
    assert written == freeze_ddl.render(), (
        f"engine/storage/frozen_ddl.py and the SQLModel classes drifted: run {freeze_ddl.COMMAND}"
    )


def test_every_tables_module_declares_only_tables_and_each_is_frozen() -> None:
    declared: set[str] = set()
    for path in sorted((ROOT / "engine").rglob("tables.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] in {"__future__", "sqlalchemy", "sqlmodel"}, path
            elif isinstance(node, ast.ClassDef):
                assert any(k.arg == "table" for k in node.keywords), f"{path}: {node.name} is not a table"
            else:
                assert isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)), f"{path}: line {node.lineno}"
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        declared |= {
            str(v.__table__.name)
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, SQLModel) and hasattr(v, "__table__")
        }
    frozen = {str(model.__table__.name) for model in freeze_ddl.models()}  # type: ignore[attr-defined]
    assert declared == frozen, "a class is missing from HISTORY in scripts/freeze_ddl.py, or one is extra"


def test_a_fresh_home_holds_exactly_the_classes_schema(tmp_path: Path, described: Schema) -> None:
    home = tmp_path / "home"
    Memory.open(home, embedder=HashEmbedder(), background=False).close()
    db = home / ".store" / "history.db"
    assert_described(schema_of(db), described)
    # SQLite keeps a CREATE statement's text: a table no migration altered holds its frozen statement
    conn = rawdb.connect(db)
    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
    conn.close()
    altered = {
        name
        for entry in freeze_ddl.HISTORY
        if isinstance(entry, freeze_ddl.Added)
        for name in [
            str(entry.model.__table__.name)  # type: ignore[attr-defined]
        ]
    }
    for constant, rows in freeze_ddl.frozen().items():
        for name, create, *_ in rows:
            if name in stored and name not in altered:
                assert stored[name] == create.strip(), (constant, name)


def test_the_prelayout_home_migrates_to_the_classes_schema(tmp_path: Path, described: Schema) -> None:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True)
    shutil.copytree(PRELAYOUT / "sessions", home / "sessions")
    db = home / ".store" / "history.db"
    conn = rawdb.connect(db)
    conn.executescript((PRELAYOUT / "history.sql").read_text(encoding="utf-8"))
    before = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    conn.close()
    assert schema_of(db) != described  # it is an older schema (no titles, no replayed rows)
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        assert sum(len(list(mem.iter_archive(s.id))) for s in mem.sessions()) == before
    assert_described(schema_of(db), described)


def _fill(path: Path, done: set[str]) -> dict[str, int]:
    """Rows for the tables the applied migrations ``done`` made, written as that schema allows; the row
    count of each table filled."""
    conn = rawdb.connect(path)
    conn.execute("INSERT INTO sessions(num, id, created_at, updated_at) VALUES (1, 'alpha', 1, 2)")
    conn.execute(
        "INSERT INTO message_meta(session_id, start_at, start_id, hot_last_id) VALUES ('alpha', 0, 1, 3)"
    )
    conn.executemany(
        "INSERT INTO messages(session_id, skey, send_at, role, content, sender) VALUES ('alpha', 's0000001', ?, ?, ?, '')",
        [
            (1, "user", "where is the ramen shop"),
            (2, "assistant", "在花蓮的老街"),
            (3, "user", "ㄅㄆㄇ only"),
        ],
    )
    conn.execute("INSERT INTO settings(key, value) VALUES ('language', '\"en\"')")
    if "m002_vectors" in done:
        conn.execute(
            "INSERT INTO vectors(embedder, message_id, session_id, dim, text_hash, vector) "
            "VALUES ('hash', 1, 'alpha', 2, 'h', x'0000803f0000803f')"
        )
        conn.execute("INSERT INTO embed_queue(message_id, session_id, queued_at) VALUES (2, 'alpha', 5)")
    if "m003_error_memory" in done:
        conn.execute(
            "INSERT INTO error_memory(id, tool_name, keywords, symptom, action, outcome, dedupe, created_at, "
            "expires_at) VALUES ('e1', 'docker', 'permission', 'permission denied', 'add to group', 'resolved', "
            "'d1', 1, 9)"
        )
    if "m004_usage" in done:
        conn.execute("INSERT INTO usage(session_id, model, purpose) VALUES ('alpha', 'gemini', 'summary')")
    conn.commit()
    counts = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in schema(conn)}
    conn.close()
    return counts


INDEX_ONLY = {"m011_unicode_fold"}
"""Migrations that change what the full-text indexes hold, not a table: a home stopped before them has the
classes' tables already."""


@pytest.mark.parametrize("k", range(1, len(database.MIGRATIONS)))
def test_a_home_stopped_after_each_migration_migrates_to_the_classes_schema(
    tmp_path: Path, k: int, described: Schema
) -> None:
    """The recorded migrations up to the ``k``-th made this home (as the code of that time did, without
    the FTS5 tables it made after them); today's code opens it and ends with the classes' schema."""
    db = tmp_path / "history.db"
    Store(db, migrations=database.MIGRATIONS[:k]).close()
    counts = _fill(db, {name for name, _ in database.MIGRATIONS[:k]})
    if any(name not in INDEX_ONLY for name, _ in database.MIGRATIONS[k:]):
        assert schema_of(db) != described
    database.open_store(db).close()
    assert_described(schema_of(db), described)
    conn = rawdb.connect(db)
    for table, count in counts.items():
        if table not in (
            "migrations",
            "messages_cjk",
            *freeze_ddl.dropped(),
        ):  # the appends of that time wrote messages_cjk
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == count, table
    if k < [name for name, _ in database.MIGRATIONS].index("m008_cjk_bopomofo") + 1:
        # m005, or m008 (bopomofo), index the CJK rows messages_cjk lacks
        assert conn.execute("SELECT COUNT(*) FROM messages_cjk").fetchone()[0] == 2
    applied = [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY name")]
    conn.close()
    assert applied == [name for name, _ in database.MIGRATIONS]


def test_migrating_an_old_home_loads_no_sqlmodel(tmp_path: Path) -> None:
    """The migrations run frozen text: migrating the pre-layout home loads neither SQLModel, SQLAlchemy
    nor pydantic (a new home's first command is checked by ``tests/engine/cli/test_cli_start.py``)."""
    db = tmp_path / "history.db"
    conn = rawdb.connect(db)
    conn.executescript((PRELAYOUT / "history.sql").read_text(encoding="utf-8"))
    conn.close()
    code = (
        "import json, sys; from pathlib import Path; from engine import database; "
        f"database.open_store(Path({str(db)!r})).close(); "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'sqlmodel', 'pydantic'})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
    conn = rawdb.connect(db)
    assert "title" in {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}  # it did migrate
    conn.close()


def test_the_hand_written_alters_made_the_columns_the_frozen_ones_make() -> None:
    made: dict[str, Schema] = {}
    for kind in ("hand-written", "frozen"):
        conn = sqlite3.connect(":memory:")
        for _, statements in frozen_ddl.M001_INITIAL:
            conn.execute(statements[0])
        for constant, old in HAND_WRITTEN_ALTERS.items():
            for statement in (
                old if kind == "hand-written" else [s for *_, s in getattr(frozen_ddl, constant)]
            ):
                conn.execute(statement)
        made[kind] = schema(conn)
        conn.close()
    assert made["hand-written"] == made["frozen"]
    assert set(HAND_WRITTEN_ALTERS) <= {
        e.constant for e in freeze_ddl.HISTORY if isinstance(e, freeze_ddl.Added)
    }
