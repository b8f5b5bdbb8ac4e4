"""Reset, reset all, remove-session and the temp-session cleanup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
            conn.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", (session,)).scalar_one()
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


def test_remove_deletes_the_sessions_lock_files(seeded: Memory) -> None:
    locks = seeded.paths.locks_dir
    with seeded._log.locks.hold("summary~cli-a"):  # the summarizer's own lock on the session
        pass
    assert {"cli-a.lock", "summary~cli-a.lock", "cli-b.lock"} <= {p.name for p in locks.iterdir()}
    seeded.remove("cli-a")
    assert {p.name for p in locks.iterdir()} == {"cli-b.lock"}
    seeded.append("cli-a", [Message("user", "again")])  # the session can be made anew
    assert (locks / "cli-a.lock").exists()


def test_stale_lock_files_are_deleted_when_a_home_opens(memory: Memory) -> None:
    locks = memory.paths.locks_dir
    memory.append("cli-a", [Message("user", "kept")])
    for name in ("gone.lock", "summary~gone.lock"):
        (locks / name).write_bytes(b"")
    assert memory._log.remove_stale_locks() == 2
    assert {p.name for p in locks.iterdir()} == {"cli-a.lock"}


@pytest.mark.skipif(os.name != "posix", reason="a lock file can only be deleted while open on POSIX")
def test_a_lock_whose_file_was_deleted_while_waiting_is_taken_again_on_the_new_file(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A waiter that opened a lock file just before its holder deleted it (removing the session) gets
    the lock of a file no longer at the path: it must try again, or two programs would hold one lock."""
    from filelock import FileLock

    from engine.storage import locks as locks_module

    path = memory.paths.locks_dir / "cli-w.lock"
    acquire = FileLock.acquire
    calls: list[int] = []

    def acquire_then_lose_the_file(self: FileLock, *args: object, **kwargs: object) -> object:
        result = acquire(self, *args, **kwargs)  # type: ignore[arg-type]
        calls.append(1)
        if len(calls) == 1:
            path.unlink()  # what the holder's remove() did between our open and our lock
        return result

    monkeypatch.setattr(FileLock, "acquire", acquire_then_lose_the_file)
    table = locks_module.SessionLocks(memory.paths.locks_dir)
    with table.hold("cli-w"):
        lock = table._pair("cli-w")[1]
        assert len(calls) == 2  # the first lock was on the deleted file: taken again
        assert path.exists() and locks_module._still_in_place(lock)


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_removing_a_session_that_is_a_link_deletes_memtrays_files_in_its_target(
    seeded: Memory, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("the user's own file")
    seeded.append("cli-l", [Message("user", "linked secret zanzibarite")])
    folder = seeded.paths.session_dir("cli-l")
    for path in folder.iterdir():
        path.rename(elsewhere / path.name)
    folder.rmdir()
    folder.symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "summary.json").write_text('{"key_decisions": ["zanzibarite"]}')
    (elsewhere / "history.json.corrupt-1").write_text("zanzibarite")
    assert "cli-l" in [s.id for s in seeded.sessions()]
    seeded.remove("cli-l")
    assert not folder.exists() and not folder.is_symlink()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["notes.txt"]
    assert "cli-l" not in [s.id for s in seeded.sessions()]
