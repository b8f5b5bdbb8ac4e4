"""The database's composition: migration names and order, a domain-free store, the FTS5 SQL kept as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, cjk, database
from engine.storage.store import Store

RECORDED = [
    "m001_initial",
    "m002_vectors",
    "m003_error_memory",
    "m004_usage",
    "m005_cjk_bigrams",
    "m006_trigram_session_key",
    "m007_context_neighbours",
]
"""The names existing databases hold in their ``migrations`` table."""

TRI = cjk.GLOB  # the class m008 widened (bopomofo, radicals); the rest of the SQL is as m001-m007 made it
TRI_KEY = (
    "char(57344, 57345 + CAST(substr(new.skey, 2) AS INTEGER) / 6000, "
    "57345 + CAST(substr(new.skey, 2) AS INTEGER) % 6000)"
)
EM_COLUMNS = "tool_name, keywords, symptom, cause, action"
EM_OLD = "old.tool_name, old.keywords, old.symptom, old.cause, old.action"
EM_NEW = "new.tool_name, new.keywords, new.symptom, new.cause, new.action"
SCHEMA = {
    "context_fts": "CREATE VIRTUAL TABLE context_fts USING fts5(prev, own, next, skey, "
    "tokenize='porter unicode61 remove_diacritics 2')",
    "messages_fts": "CREATE VIRTUAL TABLE messages_fts USING fts5(content, skey, content='messages', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "messages_bi": "CREATE VIRTUAL TABLE messages_bi USING fts5(grams, skey, content='messages_cjk', "
    "content_rowid='id', tokenize='unicode61')",
    "messages_fts_aud": "CREATE TRIGGER messages_fts_aud AFTER UPDATE ON messages BEGIN INSERT INTO "
    "messages_fts(messages_fts, rowid, content, skey) VALUES ('delete', old.id, old.content, old.skey); END",
    "messages_bi_ai": "CREATE TRIGGER messages_bi_ai AFTER INSERT ON messages_cjk BEGIN INSERT INTO "
    "messages_bi(rowid, grams, skey) VALUES (new.id, new.grams, new.skey); END",
    "error_memory_fts": f"CREATE VIRTUAL TABLE error_memory_fts USING fts5({EM_COLUMNS}, "
    "content='error_memory', content_rowid='num', tokenize='porter unicode61 remove_diacritics 2')",
    "error_memory_fts_au": f"CREATE TRIGGER error_memory_fts_au AFTER UPDATE OF {EM_COLUMNS} ON error_memory "
    f"BEGIN INSERT INTO error_memory_fts(error_memory_fts, rowid, {EM_COLUMNS}) VALUES ('delete', old.num, "
    f"{EM_OLD}); INSERT INTO error_memory_fts(rowid, {EM_COLUMNS}) VALUES (new.num, {EM_NEW}); END",
}
TRIGRAM_SCHEMA = {
    "messages_tri_ai": f"CREATE TRIGGER messages_tri_ai AFTER INSERT ON messages WHEN new.content GLOB "
    f"'{TRI}' BEGIN INSERT INTO messages_tri(rowid, content, skey) VALUES (new.id, new.content, {TRI_KEY}); "
    "END",
    "error_memory_tri": f"CREATE VIRTUAL TABLE error_memory_tri USING fts5({EM_COLUMNS}, "
    "content='error_memory', content_rowid='num', tokenize='trigram')",
}
"""SQL the engine wrote before the FTS5 tables shared one helper: databases hold it, so it must not change."""


def test_migrations_keep_their_recorded_names_and_order() -> None:
    names = [name for name, _ in database.MIGRATIONS]
    assert names[: len(RECORDED)] == RECORDED
    assert names == sorted(set(names)), "names are unique, and a new migration goes at the end"


def test_a_new_database_records_every_migration(memory: Memory) -> None:
    with memory._store.read() as conn:
        applied = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
    assert applied == [name for name, _ in database.MIGRATIONS]


def test_the_store_makes_no_table_but_the_migrations_one(tmp_path: Path) -> None:
    calls: list[str] = []
    store = Store(tmp_path / "x.db", migrations=[("m1", lambda conn: calls.append("m1"))])
    try:
        with store.read() as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == {"migrations"}
        assert store.fts_tables == set()
    finally:
        store.close()
    reopened = Store(tmp_path / "x.db", migrations=[("m1", lambda conn: calls.append("again"))])
    reopened.close()
    assert calls == ["m1"]


def test_fts_tables_and_triggers_keep_their_sql(memory: Memory) -> None:
    with memory._store.read() as conn:
        stored = {str(r[0]): str(r[1]) for r in conn.execute("SELECT name, sql FROM sqlite_master")}
    expected = dict(SCHEMA)
    if memory._store.features.trigram:
        expected.update(TRIGRAM_SCHEMA)
    elif not memory._store.features.fts5:
        pytest.skip("this SQLite has no FTS5")
    assert {name: stored.get(name) for name in expected} == expected
    triggers = {name for name in stored if name.startswith(("messages_", "error_memory_f", "error_memory_t"))}
    assert {"messages_fts_ai", "messages_fts_ad", "messages_fts_aui", "error_memory_fts_ai"} <= triggers
