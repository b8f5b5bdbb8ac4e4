"""One CJK class for the whole engine (``engine.cjk``), bopomofo included, and the migration that indexes
the messages an older class left out."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from engine import Memory, Message, cjk, database
from engine.embedders.hashing import HashEmbedder
from engine.search.migrations import OLD_GLOB
from engine.search.query import parse
from engine.sessions import migrations as archive_migrations
from engine.sessions import schema as archive_schema

T0 = 1_700_000_000 * 1_000_000_000


@pytest.mark.parametrize("char", ["ㄅ", "ㆠ", "記", "记", "の", "ア", "한", "々", "〇", "⺀", "𠀀", "豈"])
def test_cjk_characters(char: str) -> None:
    assert cjk.is_cjk(char)
    assert cjk.has_cjk(f"abc {char} def")


@pytest.mark.parametrize("char", ["a", "é", "1", "，", "。", "、", "「", " ", "_"])
def test_not_cjk_characters(char: str) -> None:
    assert not cjk.is_cjk(char)
    assert not cjk.has_cjk(f"abc {char} def")


def test_the_glob_class_is_the_same_in_sqlite() -> None:
    db = sqlite3.connect(":memory:")
    for text in ("ㄅㄆㄇ only", "記憶體", "mixed 𠀀 text"):
        assert db.execute("SELECT ? GLOB ?", (text, cjk.GLOB)).fetchone() == (1,), text
    for text in ("plain English", "，。、「」", ""):
        assert db.execute("SELECT ? GLOB ?", (text, cjk.GLOB)).fetchone() == (0,), text
    db.close()


def test_a_query_is_parsed_once_with_its_cjk_runs_phrases_and_words() -> None:
    query = parse('ㄅㄆㄇ 記憶體不足 "trip budget" what about the\x00 migration')
    assert query.has_cjk
    assert query.runs == ("ㄅㄆㄇ", "記憶體不足")
    assert query.phrases == ("trip budget",)
    assert query.words == ["trip budget", "migration"]  # engine stop words out ("what", "about", "the")
    assert "\x00" not in query.text
    assert query.phrase is not None and query.phrase.route == "tri"


def _bopomofo(mem: Memory) -> list[str]:
    return [h.message.content for h in mem.search('"ㄅㄆㄇ"', match="keyword")]  # a phrase: the trigram table


def _bigram(mem: Memory) -> list[str]:
    return [h.message.content for h in mem.search("ㄅㄆ", match="keyword")]


def test_a_message_of_bopomofo_only_is_found_in_a_new_store(memory: Memory) -> None:
    memory.append("s1", [Message("user", "ㄅㄆㄇ only", T0), Message("user", "nothing here", T0 + 1)])
    assert _bopomofo(memory) == ["ㄅㄆㄇ only"]
    assert _bigram(memory) == ["ㄅㄆㄇ only"]


def _fts_ok(home: Path) -> None:
    db = sqlite3.connect(home / ".store" / "history.db")
    try:
        for table in ("messages_tri", "messages_bi"):
            db.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    finally:
        db.close()


def test_a_store_made_with_the_old_cjk_class_indexes_bopomofo_after_the_migration(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as old:  # the store as memtray made it before m008
        old.setattr(archive_migrations, "CJK_GLOB", OLD_GLOB)
        tables = archive_schema.FTS_TABLES
        index = next(i for i, t in enumerate(tables) if t.name == "messages_tri")
        tri = dataclasses.replace(tables[index], only_where=f"{{row}}.content GLOB '{OLD_GLOB}'")
        old.setattr(archive_schema, "FTS_TABLES", (*tables[:index], tri, *tables[index + 1 :]))
        old.setattr(archive_migrations, "FTS_TABLES", archive_schema.FTS_TABLES)
        old.setattr(
            database, "MIGRATIONS", tuple(m for m in database.MIGRATIONS if m[0] != "m008_cjk_bopomofo")
        )
        with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
            stored = mem.append("s1", [Message("user", "ㄅㄆㄇ only", T0), Message("user", "記憶體", T0 + 1)])
            with mem._store.write() as conn:  # m005 gave no bigrams to rows outside its class
                conn.execute("DELETE FROM messages_cjk WHERE id = ?", (stored[0].id,))
            assert _bopomofo(mem) == [] and _bigram(mem) == []
            mem.append("s1", [Message("user", "ㄅㄆㄇ again", T0 + 2)])
            assert _bopomofo(mem) == []  # the old triggers leave new bopomofo rows out too
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        assert sorted(_bopomofo(mem)) == ["ㄅㄆㄇ again", "ㄅㄆㄇ only"]
        assert sorted(_bigram(mem)) == ["ㄅㄆㄇ again", "ㄅㄆㄇ only"]
        assert [h.message.content for h in mem.search("記憶體", match="keyword")] == ["記憶體"]
        mem.append("s1", [Message("user", "ㄅㄆㄇ later", T0 + 3)])
        assert "ㄅㄆㄇ later" in _bopomofo(mem)
        mem.forget_message(stored[0].id or 0)
        assert "ㄅㄆㄇ only" not in _bopomofo(mem) + _bigram(mem)
    _fts_ok(home)


def test_the_migration_rebuilds_a_trigram_table_of_another_form(home: Path) -> None:
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        mem.append("s1", [Message("user", "ㄅㄆㄇ only", T0)])
    db = sqlite3.connect(home / ".store" / "history.db")
    with db:  # its rows out of the trigram and bigram tables, the migration not yet applied
        db.execute("DELETE FROM messages_cjk")
        db.execute("INSERT INTO messages_tri(messages_tri) VALUES ('delete-all')")
        db.execute("DELETE FROM migrations WHERE name = 'm008_cjk_bopomofo'")
    db.close()
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        assert _bopomofo(mem) == ["ㄅㄆㄇ only"]
        assert _bigram(mem) == ["ㄅㄆㄇ only"]
    _fts_ok(home)
