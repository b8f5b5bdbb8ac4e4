"""ChatGPT import: the current branch wins, only text is kept, broken conversations are skipped."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from engine import Memory
from engine.errors import ImportFormatError, InvalidInput
from engine.importers import chatgpt, readers
from engine.importers.records import MAX_MESSAGE_CHARS
from engine.paths import validate_session_id
from engine.sessions import importing
from tests.engine.exportdata import T0, gpt_conversation, gpt_linear, gpt_message, write_json

NS = 1_000_000_000


def branched() -> dict[str, object]:
    """user, then a reply that was regenerated (the second one is current), then a follow-up."""
    return gpt_conversation(
        "6630a1b2-0000-4000-8000-00000000abcd",
        [
            ("root", None, None),
            ("sys", "root", gpt_message("system", [""], None, is_visually_hidden_from_conversation=True)),
            ("u1", "sys", gpt_message("user", ["我的電腦記憶體不足怎麼辦？"], T0 + 0.5)),
            ("a1-old", "u1", gpt_message("assistant", ["舊的回答"], T0 + 1)),
            ("a1-new", "u1", gpt_message("assistant", ["新的回答：關掉瀏覽器分頁"], T0 + 2.25)),
            ("u2-old", "a1-old", gpt_message("user", ["在舊分支上的追問"], T0 + 3)),
            ("u2", "a1-new", gpt_message("user", ["謝謝"], T0 + 4)),
            ("a2", "u2", gpt_message("assistant", ["不客氣"], T0 + 5)),
        ],
        current="a2",
    )


def test_current_branch_wins_and_times_are_ns(tmp_path: Path) -> None:
    result = chatgpt.read(write_json(tmp_path / "conversations.json", [branched()]), None)

    [session] = result.sessions
    assert session.session == "gpt-6630a1b2-0000-4000-8000-00000000abcd"
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "我的電腦記憶體不足怎麼辦？"),
        ("assistant", "新的回答：關掉瀏覽器分頁"),
        ("user", "謝謝"),
        ("assistant", "不客氣"),
    ]
    assert [m.send_at for m in session.messages] == [
        T0 * NS + 500_000_000,
        T0 * NS + 2_250_000_000,
        (T0 + 4) * NS,
        (T0 + 5) * NS,
    ]
    assert session.skipped == {"system message": 1}
    assert result.skipped == {}


def test_without_current_node_the_newest_leaf_is_taken(tmp_path: Path) -> None:
    conversation = branched()
    del conversation["current_node"]
    [session] = chatgpt.read(write_json(tmp_path / "c.json", [conversation]), None).sessions
    assert session.messages[-1].content == "不客氣"


def test_tool_hidden_and_attachment_nodes_are_skipped_and_counted(tmp_path: Path) -> None:
    conversation = gpt_conversation(
        "c-tools",
        [
            ("root", None, None),
            (
                "ctx",
                "root",
                gpt_message(
                    "user",
                    ["hidden"],
                    None,
                    content_type="user_editable_context",
                    is_visually_hidden_from_conversation=True,
                ),
            ),
            (
                "u1",
                "ctx",
                gpt_message(
                    "user",
                    [
                        {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"},
                        "這張圖是什麼？",
                    ],
                    T0,
                    content_type="multimodal_text",
                    attachments=[{"id": "file-1", "name": "a.png"}],
                ),
            ),
            ("think", "u1", gpt_message("assistant", ["..."], T0 + 1, content_type="thoughts")),
            (
                "call",
                "think",
                gpt_message("assistant", ["print(1)"], T0 + 2, content_type="code", recipient="python"),
            ),
            ("tool", "call", gpt_message("tool", ["1"], T0 + 3, content_type="execution_output")),
            ("a1", "tool", gpt_message("assistant", ["是一隻貓。"], T0 + 4)),
            (
                "u2",
                "a1",
                gpt_message(
                    "user", [{"content_type": "image_asset_pointer"}], T0 + 5, content_type="multimodal_text"
                ),
            ),
            (
                "voice",
                "u2",
                gpt_message(
                    "user",
                    [
                        {"content_type": "audio_transcription", "text": "語音問題"},
                        {"content_type": "audio_asset_pointer"},
                    ],
                    T0 + 6,
                    content_type="multimodal_text",
                ),
            ),
        ],
        current="voice",
    )
    [session] = chatgpt.read(write_json(tmp_path / "c.json", [conversation]), None).sessions

    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "這張圖是什麼？\n\n[attached: a.png]"),  # the file is left out, its name kept
        ("assistant", "是一隻貓。"),
        ("user", "語音問題"),
    ]
    assert session.skipped == {
        "hidden message": 1,
        "non-text message (thoughts)": 1,
        "assistant call to a tool": 1,
        "tool message": 1,
        "image or file part": 3,
        "attachment (file not imported)": 1,
        "empty message": 1,
    }


def test_broken_conversations_are_skipped_with_a_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    looping = gpt_conversation("c-loop", [("a", "b", None), ("b", "a", None)], current="a")
    dangling = gpt_conversation("c-dangling", [("a", "missing", gpt_message("user", ["x"], T0))], current="a")
    empty = gpt_conversation("c-empty", [("root", None, None)], current="root")
    path = write_json(
        tmp_path / "c.json",
        [
            "not a conversation",
            {"id": "c-no-mapping", "mapping": "?"},
            looping,
            dangling,
            empty,
            gpt_linear("c-ok", ["你好", "哈囉"]),
        ],
    )
    result = chatgpt.read(path, None)

    assert [s.session for s in result.sessions] == ["gpt-c-ok"]
    assert result.skipped == {"broken conversation": 4, "conversation without messages": 1}
    assert "conversation 3 ('c-loop'): the message tree loops" in caplog.text
    assert "conversation 4 ('c-dangling'): node 'missing' is missing" in caplog.text


def test_wrong_types_inside_a_conversation_skip_only_that_message(tmp_path: Path) -> None:
    conversation = gpt_conversation(
        "c-types",
        [
            ("root", None, None),
            ("m1", "root", gpt_message("user", ["ok 1"], T0)),
            ("m2", "m1", {**gpt_message("assistant", ["bad time"], T0), "create_time": "yesterday"}),
            (
                "m3",
                "m2",
                {
                    **gpt_message("assistant", ["x"], T0),
                    "content": {"content_type": "text", "parts": "not a list"},
                },
            ),
            ("m4", "m3", {**gpt_message("user", ["x"], T0), "author": {"role": 7}}),
            ("m5", "m4", gpt_message("user", ["x" * (MAX_MESSAGE_CHARS + 1)], T0 + 1)),
            ("m6", "m5", gpt_message("user", ["nul \x00 inside"], T0 + 2)),
            ("m7", "m6", gpt_message("assistant", ["ok 2"], 1e30)),
            ("m8", "m7", gpt_message("assistant", ["ok 3"], None)),
            ("m9", "m8", "not an object"),  # type: ignore[list-item]
        ],
        current="m9",
    )
    [session] = chatgpt.read(write_json(tmp_path / "c.json", [conversation]), None).sessions

    assert [m.content for m in session.messages] == ["ok 1", "ok 3"]
    assert session.messages[1].send_at == 0
    assert session.skipped == {
        "broken message": 5,
        "message with an unknown author": 1,
        f"message longer than {MAX_MESSAGE_CHARS:,} characters": 1,
    }


def test_session_ids_are_valid_and_stable(tmp_path: Path) -> None:
    odd = gpt_linear("../../etc/passwd:" + "x" * 300, ["a", "b"])
    no_id = gpt_linear("ignored", ["c", "d"])
    del no_id["id"], no_id["conversation_id"]
    path = write_json(tmp_path / "c.json", [odd, no_id])

    first = [s.session for s in chatgpt.read(path, None).sessions]
    second = [s.session for s in chatgpt.read(path, None).sessions]

    assert first == second
    for sid in first:
        assert validate_session_id(sid) == sid
        assert sid.startswith("gpt-") and len(sid) <= 128
    assert "/" not in first[0] and ".." not in first[0]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"not": "a list"}', "expected a JSON list of conversations"),
        (b'[{"id": 1},\n  oops]', "not valid JSON (line 2"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"\xff\xfe[]", "not UTF-8"),
        (b"[1" + b"0" * 5000 + b"]", "not usable JSON"),
    ],
)
def test_a_broken_file_is_an_error_naming_it(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(content)
    with pytest.raises(ImportFormatError, match=re.escape(expected)):
        chatgpt.read(path, None)


def test_folder_zip_and_missing_paths(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    write_json(folder / "conversations.json", [gpt_linear("c-1", ["hi", "hello"])])
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("chatgpt-export/conversations.json", json.dumps([gpt_linear("c-2", ["a", "b"])]))
        zf.writestr("chatgpt-export/chat.html", "<html></html>")

    assert [s.session for s in chatgpt.read(folder, None).sessions] == ["gpt-c-1"]
    assert [s.session for s in chatgpt.read(archive, None).sessions] == ["gpt-c-2"]
    with pytest.raises(ImportFormatError, match=r"no conversations\.json"):
        chatgpt.read(tmp_path, None)
    with pytest.raises(InvalidInput, match="no such file"):
        chatgpt.read(tmp_path / "missing.json", None)
    bad_zip = tmp_path / "empty.zip"
    with zipfile.ZipFile(bad_zip, "w") as zf:
        zf.writestr("readme.txt", "nothing here")
    with pytest.raises(ImportFormatError, match=r"no conversations\.json .*in this zip"):
        chatgpt.read(bad_zip, None)


def test_session_option_needs_one_conversation(tmp_path: Path) -> None:
    one = write_json(tmp_path / "one.json", [gpt_linear("c-1", ["hi", "hello"])])
    two = write_json(tmp_path / "two.json", [gpt_linear("c-1", ["hi"]), gpt_linear("c-2", ["yo"])])

    assert [s.session for s in chatgpt.read(one, "cli-mine").sessions] == ["cli-mine"]
    with pytest.raises(InvalidInput, match="exactly one conversation"):
        chatgpt.read(two, "cli-mine")
    with pytest.raises(InvalidInput, match="invalid session id"):
        chatgpt.read(one, "../x")


def test_importing_twice_adds_nothing(tmp_path: Path, memory: Memory) -> None:
    path = write_json(tmp_path / "c.json", [branched(), gpt_linear("c-2", ["第一", "第二", "第三"])])

    first = memory.import_sessions(readers()["chatgpt"](path, None).sessions)
    second = memory.import_sessions(readers()["chatgpt"](path, None).sessions)

    assert (first.sessions, first.messages_added, first.messages_already_present) == (2, 7, 0)
    assert (second.messages_added, second.messages_already_present) == (0, 7)
    assert [m.content for m in memory.history("gpt-c-2")] == ["第一", "第二", "第三"]
    assert len(list(memory.iter_archive("gpt-6630a1b2-0000-4000-8000-00000000abcd"))) == 4
    assert [h.message.session for h in memory.search("記憶體", match="keyword")] == [
        "gpt-6630a1b2-0000-4000-8000-00000000abcd"
    ]


def test_progress_counts_messages_after_each_batch(
    tmp_path: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_json(
        tmp_path / "c.json",
        [gpt_linear("c-1", ["a", "b"]), gpt_linear("c-2", ["c", "d", "e"]), gpt_linear("c-3", ["f"])],
    )
    seen: list[tuple[int, int]] = []
    memory.import_sessions(chatgpt.read(path, None).sessions, lambda done, total: seen.append((done, total)))
    assert seen == [(6, 6)]  # one batch

    monkeypatch.setattr(importing, "BATCH_MESSAGES", 3)
    path = write_json(
        tmp_path / "d.json",
        [gpt_linear("d-1", ["a", "b"]), gpt_linear("d-2", ["c", "d", "e"]), gpt_linear("d-3", ["f"])],
    )
    seen.clear()
    memory.import_sessions(chatgpt.read(path, None).sessions, lambda done, total: seen.append((done, total)))
    assert seen == [(2, 6), (5, 6), (6, 6)]  # 2 + 3 messages are over a batch, so are 3 + 1
