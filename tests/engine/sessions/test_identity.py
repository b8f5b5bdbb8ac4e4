"""Global message identity: every way in gives a global id, the same import gives the same ids on two
homes, old databases get ids by migration, and the journal records forgets, resets, removals and titles
without the text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from unittest.mock import ANY

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import identity
from tests import rawdb

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "prelayout"


def gids(mem: Memory) -> dict[int, str]:
    with mem._store.read() as conn:
        return {int(i): str(g) for i, g in conn.execute("SELECT id, gid FROM message_gids")}


def device(mem: Memory) -> str:
    with mem._store.read() as conn:
        return identity.device_id(conn)


def changes(mem: Memory) -> list[tuple[str, str, dict[str, object]]]:
    with mem._store.read() as conn:
        rows = conn.execute("SELECT kind, session_id, detail FROM session_changes ORDER BY seq")
        return [(str(k), str(s), json.loads(d)) for k, s, d in rows]


def test_an_append_gets_device_and_row_id(memory: Memory) -> None:
    stored = memory.append("s1", [Message("user", "hello", 5), Message("assistant", "hi", 6)])
    me = device(memory)
    assert len(me) == 16
    assert gids(memory) == {m.id: f"{me}.{m.id}" for m in stored if m.id is not None}


def test_the_same_import_gives_the_same_ids_on_two_homes(tmp_path: Path) -> None:
    export = [
        ImportedSession(
            "chat-1", [Message("user", "q", 10), Message("assistant", "a", 0), Message("user", "q", 10)]
        )
    ]
    found = []
    for name in ("a", "b"):
        with Memory.open(tmp_path / name, embedder=HashEmbedder(), background=False) as mem:
            mem.import_sessions(export)
            found.append(sorted(gids(mem).values()))
    assert found[0] == found[1]
    key = identity.message_key("chat-1", "user", "q", 10)
    # a message repeated in one conversation is kept twice (as imports always did), as #2; the 0 time is
    # archived as 11
    assert found[0] == sorted(
        [f"k:{key}", f"k:{key}#2", "k:" + identity.message_key("chat-1", "assistant", "a", 11)]
    )


def test_an_old_database_gets_global_ids(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True, mode=0o700)
    shutil.copytree(FIXTURE / "sessions", home / "sessions")
    conn = rawdb.connect(home / ".store" / "history.db")
    conn.executescript((FIXTURE / "history.sql").read_text(encoding="utf-8"))
    count = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    conn.close()
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        me = device(mem)
        assert count > 0
        assert gids(mem) == {i: f"{me}.{i}" for i in gids(mem)} and len(gids(mem)) == count


def test_the_journal_records_changes_without_text(memory: Memory) -> None:
    stored = memory.append("s1", [Message("user", "secret words", 5), Message("assistant", "reply", 6)])
    memory.append("s2", [Message("user", "other", 7)])
    memory.set_title("s1", "My title")
    first = stored[0]
    assert first.id is not None
    memory.forget_message(first.id)
    memory.reset("s1")
    memory.remove("s2")
    kinds = [(k, s) for k, s, _ in changes(memory)]
    assert kinds == [("title", "s1"), ("forget", "s1"), ("reset", "s1"), ("remove", "s2"), ("title", "s2")]
    _, forget, reset, remove, _ = (d for _, _, d in changes(memory))
    assert forget["gids"] == [f"{device(memory)}.{stored[0].id}"] and forget["graves"] == {}  # sync off
    assert reset["gids"] == [f"{device(memory)}.{stored[1].id}"]
    assert remove["gids"] and remove["graves"] == {}
    with memory._store.read() as conn:
        details = " ".join(
            str(d) for (d,) in conn.execute("SELECT detail FROM session_changes WHERE kind != 'title'")
        )
    assert "secret" not in details and "reply" not in details and "gids" in details
    assert gids(memory) == {}  # the ids went with their messages


def test_a_title_is_journaled_and_a_removal_drops_it(memory: Memory) -> None:
    memory.append("s3", [Message("user", "x", 1)])
    memory.set_title("s3", "Private plans")
    assert [(k, d) for k, _, d in changes(memory)] == [
        ("title", {"title": "Private plans", "source": "user"})
    ]
    memory.remove("s3")  # the title's text leaves the journal; "no title" is the change now
    assert [(k, d) for k, _, d in changes(memory)] == [
        ("remove", ANY),
        ("title", {"title": "", "source": ""}),
    ]


def test_an_imported_title_is_journaled_once_and_a_told_one_not(memory: Memory) -> None:
    export = [ImportedSession("chat-7", [Message("user", "hello", 10)], title="From the export")]
    memory.import_sessions(export)
    memory.import_sessions(export)  # the same title again: no change
    expected = [("title", "chat-7", {"title": "From the export", "source": "imported"})]
    assert changes(memory) == expected
    memory.set_title("chat-7", "Renamed elsewhere", told=True)  # what a sync applies
    assert changes(memory) == expected
    assert [(s.title, s.title_source) for s in memory.sessions() if s.id == "chat-7"] == [
        ("Renamed elsewhere", "user")
    ]


def test_a_forgotten_message_is_never_imported_again(memory: Memory) -> None:
    export = [
        ImportedSession("chat-9", [Message("user", "leaked secret", 10), Message("assistant", "ok", 11)])
    ]
    memory.import_sessions(export)
    (leaked,) = [m for m in memory.archived("chat-9") if m.content == "leaked secret"]
    assert leaked.id is not None
    memory.forget_message(leaked.id)
    report = memory.import_sessions(export)
    assert report.messages_added == 0
    assert [m.content for m in memory.archived("chat-9")] == ["ok"]
    memory.reset("chat-9")
    assert memory.import_sessions(export).messages_added == 0
