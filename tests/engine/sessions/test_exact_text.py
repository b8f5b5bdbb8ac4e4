"""Stored text comes back exactly as written, and nothing the file's text looks like makes a replay loop.

A message may start like a header that an older format kept in the content (``sendAt: …``, ``sender: …``,
``當前時間: …``, a ``---`` block); models echo the window's ``sendAt:`` prefix line. Such a message once
lost that line when read back, after which every append, ``history`` and ``context`` replayed copies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.importers import readers
from tests.engine.conftest import FakeClock

HEADERS = [
    "sendAt: 2026-08-20 02:30:00",
    "sendAt: 2026-08-20 02:30:00, sender: Alice\nhello",
    "sender: please review the PR",
    "channelId: 12345\nthe text",
    "---\n當前時間: 2024-05-01 12:34:56\n工作目錄: /home/me\n---\n舊格式",
    "當前時間：2024-05-01 12:34\n明天提醒我開會",
    "傳送者: 小明\n你好",
    "當前 chat ID: 1\n當前 channel: telegram\nhi",
    "---\n---",
    "  \n",
    "",
]


def file_records(mem: Memory, session: str) -> list[dict[str, object]]:
    return json.loads(mem.paths.history_file(session).read_text(encoding="utf-8"))


def archived(mem: Memory, session: str) -> list[str]:
    with mem._store.read() as conn:
        return [
            r[0]
            for r in conn.execute("SELECT content FROM messages WHERE session_id = ? ORDER BY id", (session,))
        ]


def test_a_one_line_sender_message_comes_back_as_written(memory: Memory) -> None:
    memory.append("cli-a", [Message("user", "sender: please review the PR", 10**18)])
    [message] = memory.history("cli-a")
    assert (message.content, message.sender, message.send_at) == ("sender: please review the PR", "", 10**18)


def test_header_like_messages_are_stored_once_and_read_back_exactly(memory: Memory, clock: FakeClock) -> None:
    written = []
    for n in range(61):
        content = HEADERS[n % len(HEADERS)] + ("" if n % 3 else f"\n#{n}")
        role = "user" if n % 2 == 0 else "assistant"
        memory.append("cli-a", [Message(role, content, clock.advance(1))])
        written.append(content)
        memory.history("cli-a")  # reads in between replay nothing either
        memory.turn_context("cli-a")
    assert [m.content for m in memory.history("cli-a")] == written
    assert [r["content"] for r in file_records(memory, "cli-a")] == written
    assert archived(memory, "cli-a") == written
    assert [m.sender for m in memory.history("cli-a")] == [""] * 61


def test_a_record_whose_text_differs_from_the_archive_is_replayed_at_most_once(memory: Memory) -> None:
    """history.json edited by hand in its newest (not yet confirmed) append: that append's rows are written
    to the file again once, then recorded as done; later appends and reads add nothing but their own."""
    memory.append("cli-a", [Message("user", "first"), Message("assistant", "second")])
    path = memory.paths.history_file("cli-a")
    records = file_records(memory, "cli-a")
    records[-1]["content"] = "second, edited by hand"
    path.write_text(json.dumps(records), encoding="utf-8")
    for n in range(10):
        memory.append("cli-a", [Message("user", f"later {n}")])
        memory.history("cli-a")
    contents = [r["content"] for r in file_records(memory, "cli-a")]
    assert contents[:2] == ["first", "second, edited by hand"]
    assert contents[2:] == ["first", "second"] + [f"later {n}" for n in range(10)]
    assert archived(memory, "cli-a") == ["first", "second"] + [f"later {n}" for n in range(10)]


def test_agenvoy_import_still_converts_legacy_headers_once(tmp_path: Path, memory: Memory) -> None:
    folder = tmp_path / "sessions" / "legacy-1"
    folder.mkdir(parents=True)
    (folder / "history.json").write_text(
        json.dumps(
            [
                {"role": "user", "content": "---\n當前時間: 2024-05-01 12:34:56\n---\n舊格式的問題"},
                {"role": "assistant", "content": "sendAt: 2024-05-01 12:35:00, sender: Bot\n回答"},
            ],
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    memory.import_sessions(readers()["agenvoy"](tmp_path / "sessions", None).sessions)
    history = memory.history("legacy-1")
    assert [m.content for m in history] == ["舊格式的問題", "回答"]
    assert history[0].send_at > 0 and history[1].sender == "Bot"
    assert [r["content"] for r in file_records(memory, "legacy-1")] == ["舊格式的問題", "回答"]


@pytest.mark.parametrize("content", HEADERS)
def test_a_history_file_written_before_the_archive_is_archived_as_written(home: Path, content: str) -> None:
    """The first encounter of a history.json the archive has not seen keeps its text as it is."""
    folder = home / "sessions" / "cli-old"
    folder.mkdir(parents=True)
    (folder / "history.json").write_text(
        json.dumps([{"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]),
        encoding="utf-8",
    )
    with Memory.open(home, background=False) as mem:
        mem.append("cli-old", [Message("user", "next")])
        assert [m.content for m in mem.history("cli-old")] == [content, "ok", "next"]
        assert archived(mem, "cli-old") == [content, "ok", "next"]
