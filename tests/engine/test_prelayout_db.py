"""A database made by the engine before the layout change opens, migrates and answers the same queries.

The fixture (tests/fixtures/prelayout, see its README) was written by the engine at commit c299f7f: its
``history.sql`` is restored into a fresh home, today's engine opens it (running its newer migrations) and
every search must give the answers that engine gave — except bopomofo, which it could not find.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from engine import Memory
from engine.embedders.hashing import HashEmbedder

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "prelayout"
BOPOMOFO = "ㄅㄆㄇ"


@pytest.fixture
def old_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True, mode=0o700)
    shutil.copytree(FIXTURE / "sessions", home / "sessions")
    conn = sqlite3.connect(home / ".store" / "history.db")
    conn.executescript((FIXTURE / "history.sql").read_text(encoding="utf-8"))
    conn.close()
    return home


def test_an_old_database_migrates_and_answers_as_before(old_home: Path) -> None:
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    with Memory.open(old_home, embedder=HashEmbedder()) as mem:
        for case in expected["searches"]:
            hits = mem.search(case["query"], session=case["session"], match=case["match"], limit=5)
            got = [[h.message.session, h.message.id, h.message.content] for h in hits]
            if case["query"] == BOPOMOFO:
                assert case["hits"] == []  # the old code never found it ...
                # ... today's finds both messages of session beta that hold it
                assert sorted(content for _, _, content in got) == ["ㄅㄆㄇ only（12）", "ㄅㄆㄇ only（4）"]
                continue
            if case["query"] == "花蓮" and case["match"] == "hybrid":
                # the old list ended with a message matching nothing (its hash vector is below the floor):
                # today's result lists hold only matches
                assert got == case["hits"][:-1], case
                continue
            assert got == case["hits"], case
        assert [r.symptom for r in mem.errors.search("docker permission denied")] == expected["errors"]
        assert {s.id for s in mem.sessions()} == {"alpha", "beta"}


def test_an_old_database_takes_new_messages_after_the_upgrade(old_home: Path) -> None:
    from engine import Message

    with Memory.open(old_home, embedder=HashEmbedder()) as mem:
        before = len(list(mem.iter_archive("alpha")))
        stored = mem.append("alpha", [Message("user", "a new note about ramen", 1_800_000_000_000_000_000)])
        assert stored[0].id is not None and stored[0].id > 64
        assert len(list(mem.iter_archive("alpha"))) == before + 1
        assert mem.search("new note about ramen", match="keyword", limit=1)[0].message.id == stored[0].id
