"""Appending: history.json and the archive written together: the window, backfill, replay."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import InvalidMessage, InvalidSessionId, SessionNotFound
from engine.messages import prefix_line
from tests.engine.conftest import FakeClock


def archived(mem: Memory, session: str) -> list[tuple[str, str, int]]:
    with mem._store.read() as conn:
        rows = conn.execute(
            "SELECT role, content, send_at FROM messages WHERE session_id = ? ORDER BY id",
            (session,),
        )
        return [(r[0], r[1], r[2]) for r in rows]


def history_file(mem: Memory, session: str) -> list[dict[str, object]]:
    return json.loads(mem.paths.history_file(session).read_text(encoding="utf-8"))


def test_a_turn_stores_user_and_assistant_with_times(memory: Memory, clock: FakeClock) -> None:
    started = clock.now
    reply_at = clock.advance(3)
    stored = memory.append(
        "cli-a",
        [Message("user", "what is 記憶體?", started, "Alice"), Message("assistant", "memory", reply_at)],
    )
    assert [m.role for m in stored] == ["user", "assistant"]
    assert all(m.id is not None and m.session == "cli-a" for m in stored)
    assert history_file(memory, "cli-a") == [
        {"role": "user", "content": "what is 記憶體?", "sendAt": started, "sender": "Alice"},
        {"role": "assistant", "content": "memory", "sendAt": reply_at},
    ]
    assert archived(memory, "cli-a") == [
        ("user", "what is 記憶體?", started),
        ("assistant", "memory", reply_at),
    ]


@pytest.mark.parametrize("role", ["tool", "system", "", "USER"])
def test_roles_other_than_user_and_assistant_are_refused(memory: Memory, role: str) -> None:
    with pytest.raises(InvalidMessage):
        memory.append("cli-a", [Message("user", "ok"), Message(role, "tool output")])
    assert not memory.paths.history_file("cli-a").exists()
    assert archived(memory, "cli-a") == []


@pytest.mark.parametrize(
    "bad",
    [
        "../etc",
        "a/b",
        "a\\b",
        "",
        ".hidden",
        "x" * 129,
        "nul\x00",
        "a:b",
        "..",
        "a..b",
        "cli-a\n",
        "cli-a\r\n",
        "\ncli-a",
    ],
)
def test_session_ids_that_could_escape_are_refused(memory: Memory, bad: str) -> None:
    with pytest.raises(InvalidSessionId):
        memory.append(bad, [Message("user", "hi")])
    assert list(memory.paths.sessions_dir.iterdir()) == []


def test_bad_times_and_content_are_refused(memory: Memory) -> None:
    for message in (Message("user", "x", -1), Message("user", "x", 10**30), Message("user", "a\x00b")):
        with pytest.raises(InvalidMessage):
            memory.append("cli-a", [message])
    assert archived(memory, "cli-a") == []


def test_empty_and_blank_text_is_archived_as_written_and_survives_compaction(memory: Memory) -> None:
    texts = ["   ", "answer", "", "\n\t"]
    stored = memory.append("cli-a", [Message(("user", "assistant")[i % 2], t) for i, t in enumerate(texts)])
    assert all(m.id is not None for m in stored)
    assert [r["content"] for r in history_file(memory, "cli-a")] == texts
    assert [r[1] for r in archived(memory, "cli-a")] == texts
    memory.update_settings(max_history_bytes=4096)
    memory.append("cli-a", [Message(("user", "assistant")[i % 2], "x" * 1500) for i in range(4)])
    assert memory.compaction_cut("cli-a") > stored[-1].id  # the blank messages left history.json...
    assert [r[1] for r in archived(memory, "cli-a")][:4] == texts  # ...and are still in the archive


def test_untimed_rows_after_a_timed_one_get_last_plus_one_in_the_archive(memory: Memory) -> None:
    memory.append("cli-a", [Message("user", "a", 0), Message("user", "b", 100), Message("assistant", "c", 0)])
    assert [r[2] for r in archived(memory, "cli-a")] == [0, 100, 101]
    assert "sendAt" not in history_file(memory, "cli-a")[2]


def test_window_is_the_last_16_by_count_with_prefix_lines(memory: Memory, clock: FakeClock) -> None:
    for i in range(20):
        memory.append("cli-a", [Message("user" if i % 2 == 0 else "assistant", f"m{i}", clock.advance(1))])
    window = memory.window("cli-a")
    assert [m.content for m in window] == [f"m{i}" for i in range(4, 20)]
    assert window[0].role == "user"
    line = prefix_line(Message("user", "x", window[0].send_at, "Bob"))
    assert line.startswith("sendAt: ") and line.endswith(", sender: Bob")
    assert len(line.split("sendAt: ")[1].split(",")[0]) == len("2025-01-02 15:04:05")


def test_window_setting_is_respected(memory: Memory) -> None:
    memory.update_settings(max_history_messages=3)
    memory.append("cli-a", [Message("user", str(i)) for i in range(5)])
    assert [m.content for m in memory.window("cli-a")] == ["2", "3", "4"]


def test_backfill_of_a_history_file_that_predates_the_archive(memory: Memory, clock: FakeClock) -> None:
    folder = memory.paths.session_dir("cli-old")
    folder.mkdir(parents=True)
    old = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"old {i}", "sendAt": clock.advance(1)}
        for i in range(10)
    ]
    memory.paths.history_file("cli-old").write_text(json.dumps(old), encoding="utf-8")
    memory.append(
        "cli-old",
        [Message("user", "new 1", clock.advance(1)), Message("assistant", "new 2", clock.advance(1))],
    )
    assert len(archived(memory, "cli-old")) == 12
    memory.append("cli-old", [Message("user", "new 3", clock.advance(1))])
    contents = [r[1] for r in archived(memory, "cli-old")]
    assert len(contents) == 13 and len(set(contents)) == 13
    assert [m.id for m in memory.history("cli-old")] == sorted(m.id for m in memory.history("cli-old"))


def test_history_ids_match_the_archive(memory: Memory) -> None:
    stored = memory.append("cli-a", [Message("user", "a"), Message("assistant", " "), Message("user", "c")])
    assert [m.id for m in memory.history("cli-a")] == [m.id for m in stored]


def test_unknown_sessions_are_errors_for_readers(memory: Memory) -> None:
    with pytest.raises(SessionNotFound):
        memory.history("cli-nope")
    with pytest.raises(SessionNotFound):
        memory.append("cli-nope", [Message("user", "x")], create=False)


def test_a_corrupt_history_file_is_moved_aside_and_rebuilt(memory: Memory, clock: FakeClock) -> None:
    memory.append(
        "cli-a", [Message("user", "one", clock.advance(1)), Message("assistant", "two", clock.advance(1))]
    )
    path = memory.paths.history_file("cli-a")
    path.write_bytes(b'[{"role":"user","content":"one"')  # truncated
    memory.append("cli-a", [Message("user", "three", clock.advance(1))])
    assert [r["content"] for r in history_file(memory, "cli-a")] == ["one", "two", "three"]
    aside = list(path.parent.glob("history.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b'[{"role"')


def test_a_deleted_history_file_is_rebuilt_from_the_archive(memory: Memory) -> None:
    memory.append("cli-a", [Message("user", "one"), Message("assistant", "two")])
    memory.paths.history_file("cli-a").unlink()
    assert [m.content for m in memory.history("cli-a")] == ["one", "two"]


def test_an_interrupted_append_is_replayed_once(memory: Memory, home: Path) -> None:
    memory.append("cli-a", [Message("user", "first")])
    # Simulate a crash after the archive commit and before history.json was written.
    with memory._store.write() as conn:
        from engine.sessions import archive

        archive.insert(conn, "cli-a", [Message("assistant", "acknowledged?")], 1)
    memory.append("cli-a", [Message("user", "next")])
    assert [r["content"] for r in history_file(memory, "cli-a")] == ["first", "acknowledged?", "next"]
    memory.append("cli-a", [Message("user", "again")])
    assert [r[1] for r in archived(memory, "cli-a")] == ["first", "acknowledged?", "next", "again"]
    assert len(history_file(memory, "cli-a")) == 4


def test_files_are_owner_only(memory: Memory) -> None:
    memory.append("cli-a", [Message("user", "secret")])
    if os.name == "posix":
        for path in (memory.paths.home, memory.paths.session_dir("cli-a"), memory.paths.store_dir):
            assert path.stat().st_mode & 0o077 == 0, path
        assert memory.paths.history_file("cli-a").stat().st_mode & 0o077 == 0
