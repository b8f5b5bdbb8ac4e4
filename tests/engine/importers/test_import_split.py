"""ChatGPT's split export (conversations-000.json, -001 …) in a folder, a zip or one part; titles."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engine import Memory
from engine.importers import chatgpt, claude
from tests.engine.exportdata import claude_conversation, claude_message, gpt_linear, write_json


def split_conversations() -> list[list[dict[str, object]]]:
    """Three parts as a large account gets them: each a complete JSON list of conversations."""
    return [
        [gpt_linear("c-000-a", ["part zero a", "ok"]), gpt_linear("c-000-b", ["part zero b", "ok"])],
        [gpt_linear("c-001-a", ["part one", "ok"])],
        [gpt_linear("c-002-a", ["part two", "ok"])],
    ]


def write_split_folder(folder: Path) -> Path:
    for number, part in enumerate(split_conversations()):
        write_json(folder / f"conversations-{number:03d}.json", part)
    write_json(folder / "user.json", {"id": "user-1"})
    write_json(folder / "export_manifest.json", {"files": 3})
    (folder / "conversations.json.index").write_text("0 1 2", encoding="utf-8")
    (folder / "chat.html").write_text("<html></html>", encoding="utf-8")
    return folder


def test_split_folder_reads_every_part_in_order(tmp_path: Path) -> None:
    result = chatgpt.read(write_split_folder(tmp_path / "export"), None)

    assert [s.session for s in result.sessions] == [
        "gpt-c-000-a",
        "gpt-c-000-b",
        "gpt-c-001-a",
        "gpt-c-002-a",
    ]
    assert result.skipped == {}


def test_split_zip_reads_every_part_and_ignores_macos_forks(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        # written out of order: the parts are read by number, not by their place in the zip
        for number, part in reversed(list(enumerate(split_conversations()))):
            zf.writestr(f"export/conversations-{number:03d}.json", json.dumps(part))
        zf.writestr("__MACOSX/export/._conversations-000.json", b"\x00\x05\x16\x07junk")
        zf.writestr("export/._conversations-001.json", b"\x00\x05\x16\x07junk")
        zf.writestr("export/user.json", "{}")

    result = chatgpt.read(archive, None)

    assert [s.session for s in result.sessions] == [
        "gpt-c-000-a",
        "gpt-c-000-b",
        "gpt-c-001-a",
        "gpt-c-002-a",
    ]


def test_one_part_given_by_name_is_read_alone(tmp_path: Path) -> None:
    folder = write_split_folder(tmp_path / "export")

    result = chatgpt.read(folder / "conversations-001.json", None)

    assert [s.session for s in result.sessions] == ["gpt-c-001-a"]


def test_a_conversation_in_two_parts_is_imported_once_the_newest_copy(tmp_path: Path) -> None:
    old = gpt_linear("c-dup", ["question", "old answer"])
    new = gpt_linear("c-dup", ["question", "new answer"])
    old["update_time"], new["update_time"] = 100.0, 200.0
    write_json(tmp_path / "export" / "conversations-000.json", [new])
    write_json(tmp_path / "export" / "conversations-001.json", [old])

    result = chatgpt.read(tmp_path / "export", None)

    [session] = result.sessions
    assert [m.content for m in session.messages] == ["question", "new answer"]
    assert result.skipped == {"conversation found twice (the copy updated last is imported)": 1}


def test_split_export_imports_into_the_memory(tmp_path: Path, memory: Memory) -> None:
    folder = write_split_folder(tmp_path / "export")

    report = memory.import_sessions(chatgpt.read(folder, None).sessions)

    assert (report.sessions, report.messages_added) == (4, 8)
    assert [m.content for m in memory.history("gpt-c-002-a")] == ["part two", "ok"]


def test_a_byte_order_mark_is_accepted_in_an_export(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps([gpt_linear("c-bom", ["hi", "hello"])]).encode())

    assert [s.session for s in chatgpt.read(path, None).sessions] == ["gpt-c-bom"]


def test_titles_are_carried(tmp_path: Path) -> None:
    named = gpt_linear("c-named", ["a", "b"])
    named["title"] = "  Trip notes  "
    untitled = gpt_linear("c-untitled", ["a", "b"])
    untitled["title"] = None
    gpt = chatgpt.read(write_json(tmp_path / "gpt" / "conversations.json", [named, untitled]), None)
    conversation = claude_conversation("u-1", [claude_message("human", "x", "2025-02-03T10:00:00.000000Z")])
    conversation["name"] = "Haiku"
    empty = claude_conversation("u-2", [claude_message("human", "x", "2025-02-03T10:00:00.000000Z")])
    empty["name"] = ""
    cl = claude.read(write_json(tmp_path / "claude" / "conversations.json", [conversation, empty]), None)

    assert [s.title for s in gpt.sessions] == ["Trip notes", None]
    assert [s.title for s in cl.sessions] == ["Haiku", None]


def test_first_and_last_times_are_computable(tmp_path: Path) -> None:
    result = chatgpt.read(
        write_json(tmp_path / "conversations.json", [gpt_linear("c", ["a", "b", "c"])]), None
    )

    [session] = result.sessions
    assert (session.first_at, session.last_at) == (session.messages[0].send_at, session.messages[-1].send_at)
    assert session.first_at < session.last_at


@pytest.mark.parametrize("name", ["Conversations-007.JSON", "conversations.json"])
def test_part_names_are_matched_without_regard_to_case(tmp_path: Path, name: str) -> None:
    write_json(tmp_path / "export" / name, [gpt_linear("c-x", ["a", "b"])])

    assert [s.session for s in chatgpt.read(tmp_path / "export", None).sessions] == ["gpt-c-x"]
