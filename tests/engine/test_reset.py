"""Reset, reset all, remove-session and the temp-session cleanup."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from engine import Memory, Message
from engine.errors import SessionNotFound
from tests.engine.conftest import FakeClock


@pytest.fixture
def seeded(memory: Memory, clock: FakeClock) -> Memory:
    memory.append(
        "cli-a", [Message("user", "apple", clock.advance(1)), Message("assistant", "pie", clock.advance(1))]
    )
    memory.append("cli-b", [Message("user", "banana", clock.advance(1))])
    memory.paths.summary_file("cli-a").write_text('{"key_decisions": []}', encoding="utf-8")
    memory.paths.cursor_file("cli-a").write_text("2024-01-01 00:00:00", encoding="utf-8")
    return memory


def rows(mem: Memory, session: str) -> int:
    with mem._store.read() as conn:
        return int(
            conn.execute(
                text("SELECT COUNT(*) FROM messages WHERE session_id = :s"), {"s": session}
            ).scalar_one()
        )


def test_reset_keeps_the_summary_and_cursor(seeded: Memory) -> None:
    result = seeded.reset("cli-a")
    assert result.messages_deleted == 2 and result.summary_kept
    assert not seeded.paths.history_file("cli-a").exists()
    assert seeded.paths.summary_file("cli-a").exists() and seeded.paths.cursor_file("cli-a").exists()
    assert rows(seeded, "cli-a") == 0 and rows(seeded, "cli-b") == 1
    assert seeded.search("apple", match="keyword") == []
    assert seeded.history("cli-a") == []  # the session still exists, empty


def test_reset_all_also_deletes_the_summary(seeded: Memory) -> None:
    seeded.reset("cli-a", include_summary=True)
    assert not seeded.paths.summary_file("cli-a").exists()
    assert not seeded.paths.cursor_file("cli-a").exists()


def test_remove_deletes_the_folder_and_rows(seeded: Memory) -> None:
    seeded.remove("cli-a")
    assert not seeded.paths.session_dir("cli-a").exists()
    assert rows(seeded, "cli-a") == 0 and rows(seeded, "cli-b") == 1
    assert [s.id for s in seeded.sessions()] == ["cli-b"]
    with pytest.raises(SessionNotFound):
        seeded.reset("cli-a")


def test_new_messages_after_a_reset_get_new_ids(seeded: Memory) -> None:
    old_ids = {m.id for m in seeded.history("cli-a")}
    seeded.reset("cli-a")
    new = seeded.append("cli-a", [Message("user", "again")])
    assert new[0].id not in old_ids


def test_idle_temp_sessions_are_purged_entirely(memory: Memory, clock: FakeClock) -> None:
    memory.append("temp-1", [Message("user", "scratch")])
    memory.append("cli-keep", [Message("user", "keep")])
    folder = memory.paths.session_dir("temp-1")
    old = (clock.now - 31 * 60 * 10**9) / 1e9
    for path in [folder, *folder.iterdir()]:
        os.utime(path, (old, old))
    clock.now = folder.stat().st_mtime_ns + 31 * 60 * 10**9
    assert memory.cleanup_temp_sessions() == ["temp-1"]
    assert rows(memory, "temp-1") == 0 and not folder.exists()
    assert rows(memory, "cli-keep") == 1


def test_sessions_listing(seeded: Memory) -> None:
    infos = {i.id: i for i in seeded.sessions()}
    assert infos["cli-a"].hot_messages == 2 and infos["cli-a"].archived_messages == 0
    assert infos["cli-a"].summary_updated > 0 and infos["cli-b"].summary_updated == 0
    assert not infos["cli-a"].temporary
    seeded.append("temp-x", [Message("user", "t")])
    assert "temp-x" not in {i.id for i in seeded.sessions(include_temp=False)}
