"""Agenvoy import: session folders in both history formats, summary.json with legacy keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import Memory
from engine.clock import parse_local
from engine.errors import ImportFormatError, InvalidInput
from engine.importers import agenvoy
from engine.importers.agenvoy_summary import convert, decision
from tests.engine.exportdata import write_json

NS = 1_000_000_000
T = 1_714_538_096 * NS

LEGACY_SUMMARY = {
    "core_discussion": "記憶體不足",
    "confirmed_needs": ["要：回答用繁體中文", "不要：使用表情符號", "保留原始檔案"],
    "excluded_options": ["重灌系統：太麻煩"],
    "current_conclusion": ["先關分頁", "再加記憶體"],
    "discussion_log": [
        {"topic": "瀏覽器", "time": "2024-04-01 10:00", "conclusion": "resolved"},
        {"topic": "硬碟", "time": "2024-04-02 11:00", "conclusion": "pending"},
        {"topic": "瀏覽器", "time": "2024-04-03 09:00", "conclusion": "dropped"},
    ],
}


def new_format_history() -> list[Any]:
    return [
        {"role": "system", "content": "you are helpful"},
        {"role": "user", "content": "我的電腦記憶體不足", "sendAt": T, "sender": "小明"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "1"}], "sendAt": T + NS},
        {"role": "tool", "content": "{}", "sendAt": T + NS},
        {"role": "assistant", "content": "關掉分頁。", "sendAt": T + 2 * NS},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "這張圖呢？"},
                {"type": "image_url", "image_url": {"url": "x"}},
            ],
            "sendAt": T + 3 * NS,
        },
        {"role": "assistant", "content": 42, "sendAt": T + 4 * NS},
        {"role": "assistant", "content": "bad time", "sendAt": "yesterday"},
        "not a record",
    ]


def legacy_history() -> list[Any]:
    return [
        {
            "role": "user",
            "content": "---\n當前時間: 2024-05-01 12:34:56\n工作目錄: /home/me\n---\n舊格式的問題",
        },
        {"role": "assistant", "content": "---\n當前時間: 2024-05-01 12:35:10\n---\n舊格式的回答"},
    ]


def make_sessions(root: Path) -> Path:
    sessions = root / "sessions"
    write_json(sessions / "cli-0c7e4f1a" / "history.json", new_format_history())
    write_json(sessions / "cli-0c7e4f1a" / "summary.json", LEGACY_SUMMARY)
    write_json(sessions / "tg-9f86d081" / "history.json", legacy_history())
    write_json(sessions / "temp-1234" / "history.json", [{"role": "user", "content": "throwaway"}])
    write_json(sessions / ".Trash" / "cli-old" / "history.json", [{"role": "user", "content": "trash"}])
    (sessions / "not-a-session").mkdir()
    (sessions / "not-a-session" / "action.log").write_text("x")
    write_json(sessions / "bad name" / "history.json", [{"role": "user", "content": "x"}])
    return sessions


def test_sessions_folder_both_formats(tmp_path: Path) -> None:
    result = agenvoy.read(make_sessions(tmp_path), None)

    by_id = {s.session: s for s in result.sessions}
    assert sorted(by_id) == ["cli-0c7e4f1a", "tg-9f86d081"]
    cli = by_id["cli-0c7e4f1a"]
    assert [(m.role, m.content, m.send_at, m.sender) for m in cli.messages] == [
        ("user", "我的電腦記憶體不足", T, "小明"),
        ("assistant", "關掉分頁。", T + 2 * NS, ""),
        ("user", "這張圖呢？", T + 3 * NS, ""),
    ]
    assert cli.skipped == {
        "system message": 1,
        "tool message": 1,
        "assistant call to a tool": 1,
        "non-text content part (image, file)": 1,
        "broken message": 2,
        "message with a time that is not a number": 1,
    }
    legacy = by_id["tg-9f86d081"]
    assert [(m.content, m.send_at) for m in legacy.messages] == [
        ("舊格式的問題", parse_local("2024-05-01 12:34:56")),
        ("舊格式的回答", parse_local("2024-05-01 12:35:10")),
    ]
    assert legacy.summary is None
    assert result.skipped == {"temp- session (throwaway)": 1, "folder name is not a session id": 1}


def test_the_agenvoy_home_and_a_single_folder_work_too(tmp_path: Path) -> None:
    make_sessions(tmp_path)
    assert len(agenvoy.read(tmp_path, None).sessions) == 2

    single = agenvoy.read(tmp_path / "sessions" / "tg-9f86d081", None)
    assert [s.session for s in single.sessions] == ["tg-9f86d081"]
    by_file = agenvoy.read(tmp_path / "sessions" / "tg-9f86d081" / "history.json", "cli-renamed")
    assert [s.session for s in by_file.sessions] == ["cli-renamed"]
    temp = agenvoy.read(tmp_path / "sessions" / "temp-1234", None)
    assert (temp.sessions, temp.skipped) == ([], {"temp- session (throwaway)": 1})


def test_errors_for_paths_and_options(tmp_path: Path) -> None:
    sessions = make_sessions(tmp_path)
    with pytest.raises(InvalidInput, match="--session needs one session folder"):
        agenvoy.read(sessions, "cli-x")
    with pytest.raises(InvalidInput, match="not a folder"):
        agenvoy.read(tmp_path / "missing", None)
    with pytest.raises(InvalidInput, match="pass --session"):
        agenvoy.read(sessions / "bad name", None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFormatError, match="no Agenvoy session"):
        agenvoy.read(tmp_path / "empty", None)


def test_a_broken_history_fails_alone_but_is_skipped_among_many(tmp_path: Path) -> None:
    sessions = make_sessions(tmp_path)
    broken = sessions / "cli-broken"
    broken.mkdir()
    (broken / "history.json").write_text('[{"role": "user", "content": "x"},', encoding="utf-8")
    write_json(sessions / "cli-object" / "history.json", {"role": "user"})

    with pytest.raises(ImportFormatError, match=r"history\.json: not valid JSON \(line 1"):
        agenvoy.read(broken, None)
    result = agenvoy.read(sessions, None)
    assert sorted(s.session for s in result.sessions) == ["cli-0c7e4f1a", "tg-9f86d081"]
    assert result.skipped["session with an unreadable history.json"] == 2


def test_summary_only_and_broken_summary(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    write_json(sessions / "cli-only-summary" / "summary.json", LEGACY_SUMMARY)
    write_json(sessions / "cli-odd-summary" / "history.json", legacy_history())
    (sessions / "cli-odd-summary" / "summary.json").write_text("{not json", encoding="utf-8")
    write_json(sessions / "cli-no-keys" / "history.json", legacy_history())
    write_json(sessions / "cli-no-keys" / "summary.json", {"hello": 1})

    result = agenvoy.read(sessions, None)

    assert sorted(s.session for s in result.sessions) == ["cli-no-keys", "cli-odd-summary"]
    assert all(s.summary is None for s in result.sessions)
    assert result.skipped == {"session without messages": 1, "summary.json of a session without messages": 1}
    skipped = {s.session: s.skipped for s in result.sessions}
    assert skipped == {
        "cli-odd-summary": {"unreadable summary.json": 1},
        "cli-no-keys": {"summary.json without summary keys": 1},
    }


def test_import_installs_the_mapped_summary_and_twice_adds_nothing(tmp_path: Path, memory: Memory) -> None:
    sessions = make_sessions(tmp_path)

    first = memory.import_sessions(agenvoy.read(sessions, None).sessions)
    second = memory.import_sessions(agenvoy.read(sessions, None).sessions)

    assert (first.sessions, first.messages_added, first.messages_already_present) == (2, 5, 0)
    assert (second.messages_added, second.messages_already_present) == (0, 5)
    summary = json.loads(memory.paths.summary_file("cli-0c7e4f1a").read_text(encoding="utf-8"))
    assert summary == convert(LEGACY_SUMMARY)
    assert [m.content for m in memory.history("tg-9f86d081")] == ["舊格式的問題", "舊格式的回答"]
    assert not memory.paths.summary_file("tg-9f86d081").exists()


def test_existing_summary_is_not_replaced(tmp_path: Path, memory: Memory) -> None:
    sessions = make_sessions(tmp_path)
    memory.import_sessions(agenvoy.read(sessions, None).sessions)
    path = memory.paths.summary_file("cli-0c7e4f1a")
    path.write_text('{"key_decisions": ["Do: mine"]}', encoding="utf-8")

    memory.import_sessions(agenvoy.read(sessions, None).sessions)

    assert json.loads(path.read_text(encoding="utf-8")) == {"key_decisions": ["Do: mine"]}


def test_legacy_summary_keys_are_mapped() -> None:
    assert convert(LEGACY_SUMMARY) == {
        "key_decisions": [
            "Do: 回答用繁體中文",
            "Don't: 使用表情符號",
            "Do: 保留原始檔案",
            "Don't: 重灌系統：太麻煩",
        ],
        "past_discussions": [
            {
                "topic": "硬碟",
                "description": "pending",
                "direction": "",
                "last_discussed": "2024-04-02 11:00",
            },
            {
                "topic": "瀏覽器",
                "description": "dropped",
                "direction": "",
                "last_discussed": "2024-04-03 09:00",
            },
        ],
        "current_discussion": {
            "topic": "記憶體不足",
            "description": "",
            "perspectives": "",
            "direction": "再加記憶體",
        },
    }


def test_new_keys_win_are_coerced_and_trimmed() -> None:
    past = [
        {"topic": f"t{i}", "last_discussed": f"2024-04-{i + 10:02d} 10:00", "extra": 1} for i in range(10)
    ]
    data = {
        "key_decisions": [f"要：規則{i}" for i in range(10)] + [None],
        "past_discussions": [*past, "not an object"],
        "current_discussion": {"topic": 5, "direction": ["x"]},
        "core_discussion": "legacy topic is ignored",
    }
    summary = convert(data)
    assert summary is not None
    assert summary["key_decisions"] == [f"Do: 規則{i}" for i in range(8)]
    assert [p["topic"] for p in summary["past_discussions"]] == [f"t{i}" for i in range(2, 10)]  # type: ignore[attr-defined, index]
    assert summary["current_discussion"] == {
        "topic": "5",
        "description": "",
        "perspectives": "",
        "direction": "",
    }


@pytest.mark.parametrize("data", [{"key_decisions": []}, {"core_discussion": "x"}, [], "text", None])
def test_not_a_summary(data: object) -> None:
    assert convert(data) is None


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("要：用中文", "Do: 用中文"),
        ("不要：用表情", "Don't: 用表情"),
        ("要: ascii colon", "Do: ascii colon"),
        ("する：日本語", "Do: 日本語"),
        ("しない：絵文字", "Don't: 絵文字"),
        ("Do: already", "Do: already"),
        ("Don't: already", "Don't: already"),
        ("no marker", "no marker"),
    ],
)
def test_decision_markers(entry: str, expected: str) -> None:
    assert decision(entry) == expected
