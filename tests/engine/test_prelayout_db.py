"""A database made by the engine before the layout change opens, migrates and answers the same queries.

The fixture (tests/fixtures/prelayout, see its README) was written by the engine at commit c299f7f: its
``history.sql`` is restored into a fresh home, today's engine opens it (running its newer migrations) and
every search must give the answers that engine gave — except bopomofo, which it could not find — and the
texts that fold (written into it as that engine wrote them) are found in every spelling once
``m011_unicode_fold`` has re-indexed them.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from engine import Memory, cjk
from engine.embedders.hashing import HashEmbedder
from tests import rawdb

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "prelayout"
BOPOMOFO = "ㄅㄆㄇ"


@pytest.fixture
def old_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True, mode=0o700)
    shutil.copytree(FIXTURE / "sessions", home / "sessions")
    conn = rawdb.connect(home / ".store" / "history.db")
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


FOLDED_CASES = {
    # message id (archived only, in session alpha): (text the old engine stored, what today's query types)
    2: ("The REST ＡＰＩ broke: the ﬁle pass\u200bword was wrong", ["API", "file", "password"]),
    3: (unicodedata.normalize("NFD", "crème brûlée at the Straße café"), ["brûlée", "strasse"]),
    4: ("ｶﾀｶﾅ表記と記憶體不足，請重啟", ["カタカナ", '"不足,請重啟"']),
}


def _as_the_old_engine_wrote(home: Path) -> None:
    """Give archived messages texts that fold, written as the old engine wrote them: its triggers index the
    stored text, its bigrams are those of the stored text, its context index holds ``sender: content``."""
    conn = rawdb.connect(home / ".store" / "history.db")
    pair = re.compile(f"(?=([{cjk.RANGES}]{{2}}))")
    with conn:
        for message_id, (text, _) in FOLDED_CASES.items():
            conn.execute("UPDATE messages SET content = ? WHERE id = ?", (text, message_id))
            conn.execute("DELETE FROM messages_cjk WHERE id = ?", (message_id,))
            if grams := " ".join(pair.findall(text)):
                conn.execute(
                    "INSERT INTO messages_cjk(id, skey, grams) SELECT id, skey, ? FROM messages WHERE id = ?",
                    (grams, message_id),
                )
            sender = conn.execute("SELECT sender FROM messages WHERE id = ?", (message_id,)).fetchone()[0]
            conn.execute("UPDATE context_fts SET own = ? WHERE rowid = ?", (f"{sender}: {text}", message_id))
    conn.close()


def test_an_old_database_finds_every_spelling_after_the_fold_migration(old_home: Path) -> None:
    _as_the_old_engine_wrote(old_home)
    with Memory.open(old_home, embedder=HashEmbedder(), background=False) as mem:
        for message_id, (text, queries) in FOLDED_CASES.items():
            for query in queries:
                for match in ("keyword", "hybrid"):
                    hits = mem.search(query, session="alpha", match=match, limit=5)
                    assert [(h.message.id, h.message.content) for h in hits][:1] == [(message_id, text)], (
                        query,
                        match,
                    )
        assert mem.search("wrong", session="alpha", match="keyword")[0].message.id == 2  # unfolded words too
        mem.forget_message(2)  # removing a re-indexed row removes what the migration indexed
        for query in FOLDED_CASES[2][1]:
            assert [h.message.id for h in mem.search(query, session="alpha", match="keyword")] == []
