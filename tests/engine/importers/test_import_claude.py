"""Claude import: roles and times mapped, text parts kept, attachments and tool parts counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory
from engine.errors import ImportFormatError
from engine.importers import claude
from tests.engine.exportdata import claude_conversation, claude_message, write_json

NS = 1_000_000_000
T0 = 1_714_538_096  # 2024-05-01T04:34:56Z


def test_roles_times_and_text_parts(tmp_path: Path) -> None:
    conversation = claude_conversation(
        "28d5f9a4-1b2c-4d5e-8f90-0123456789ab",
        [
            claude_message(
                "human",
                "幫我看這份報告",
                "2024-05-01T04:34:56.123456Z",
                attachments=[{"file_name": "report.txt", "extracted_content": "機密內容"}],
                files=[{"file_name": "chart.png"}],
            ),
            claude_message(
                "assistant",
                "ignored when content has text",
                "2024-05-01T12:35:00+08:00",
                content=[
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "報告的重點是記憶體不足。"},
                    {"type": "tool_use", "name": "web_search", "input": {}},
                    {"type": "tool_result", "content": []},
                    {"type": "text", "text": "建議升級。"},
                ],
            ),
            claude_message("human", "謝謝", "2024-05-01T04:36:00"),
        ],
    )
    result = claude.read(write_json(tmp_path / "conversations.json", [conversation]), None)

    [session] = result.sessions
    assert session.session == "claude-28d5f9a4-1b2c-4d5e-8f90-0123456789ab"
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "幫我看這份報告"),
        ("assistant", "報告的重點是記憶體不足。\n\n建議升級。"),
        ("user", "謝謝"),
    ]
    assert [m.send_at for m in session.messages] == [
        T0 * NS + 123_456_000,
        (T0 + 4) * NS,
        (T0 + 64) * NS,  # a time without a zone is UTC
    ]
    assert session.skipped == {
        "attachment (file not imported)": 1,
        "file (not imported)": 1,
        "non-text part (thinking)": 1,
        "non-text part (tool_use)": 1,
        "non-text part (tool_result)": 1,
    }


def test_text_field_is_used_without_content_parts(tmp_path: Path) -> None:
    conversation = claude_conversation(
        "c-old",
        [
            claude_message("human", "舊格式的訊息", "2024-05-01T04:34:56Z", content=[]),
            {**claude_message("assistant", "沒有 content 欄位", "2024-05-01T04:35:56Z"), "content": None},
        ],
    )
    [session] = claude.read(write_json(tmp_path / "c.json", [conversation]), None).sessions
    assert [m.content for m in session.messages] == ["舊格式的訊息", "沒有 content 欄位"]


def test_current_leaf_branch_wins(tmp_path: Path) -> None:
    root = "00000000-0000-4000-8000-000000000000"
    messages = [
        claude_message("human", "問題", "2024-05-01T04:34:56Z", uuid="q", parent_message_uuid=root),
        claude_message(
            "assistant", "第一次的回答", "2024-05-01T04:35:00Z", uuid="a1", parent_message_uuid="q"
        ),
        claude_message(
            "assistant", "重新產生的回答", "2024-05-01T04:36:00Z", uuid="a2", parent_message_uuid="q"
        ),
        claude_message("human", "追問", "2024-05-01T04:37:00Z", uuid="f", parent_message_uuid="a2"),
    ]
    with_leaf = claude_conversation("c-branch", messages, current_leaf_message_uuid="f")
    without = claude_conversation("c-flat", messages)
    result = claude.read(write_json(tmp_path / "c.json", [with_leaf, without]), None)

    assert [m.content for m in result.sessions[0].messages] == ["問題", "重新產生的回答", "追問"]
    assert [m.content for m in result.sessions[1].messages] == [
        "問題",
        "第一次的回答",
        "重新產生的回答",
        "追問",
    ]


def test_broken_records_are_skipped_and_counted(tmp_path: Path) -> None:
    good = claude_conversation(
        "c-good",
        [
            claude_message("human", "ok", "2024-05-01T04:34:56Z"),
            claude_message("human", "bad time", "not a time"),
            claude_message("system", "who?", "2024-05-01T04:34:56Z"),
            {**claude_message("assistant", "x", "2024-05-01T04:34:56Z"), "content": [], "text": 42},
            "not an object",
            claude_message("assistant", "", "2024-05-01T04:34:57Z", content=[]),
        ],
    )
    path = write_json(
        tmp_path / "c.json",
        [
            good,
            {"uuid": "c-bad", "chat_messages": "?"},
            {"name": "no uuid"},
            [],
            claude_conversation("c-empty", []),
        ],
    )
    result = claude.read(path, None)

    [session] = result.sessions
    assert [m.content for m in session.messages] == ["ok"]
    assert session.skipped == {"broken message": 3, "message with an unknown sender": 1, "empty message": 1}
    assert result.skipped == {"broken conversation": 3, "conversation without messages": 1}


def test_top_level_must_be_a_list(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="expected a JSON list of conversations"):
        claude.read(write_json(tmp_path / "c.json", {"conversations": []}), None)


def test_importing_twice_adds_nothing(tmp_path: Path, memory: Memory) -> None:
    conversation = claude_conversation(
        "c-twice",
        [
            claude_message("human", "記得我喜歡綠茶", "2024-05-01T04:34:56Z"),
            claude_message("assistant", "好的，記住了。", "2024-05-01T04:34:58Z"),
        ],
    )
    path = write_json(tmp_path / "c.json", [conversation])

    first = memory.import_sessions(claude.read(path, None).sessions)
    second = memory.import_sessions(claude.read(path, None).sessions)

    assert (first.messages_added, second.messages_added, second.messages_already_present) == (2, 0, 2)
    assert [m.content for m in memory.history("claude-c-twice")] == ["記得我喜歡綠茶", "好的，記住了。"]
