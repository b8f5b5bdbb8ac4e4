"""Export shapes beyond the official ones: untyped ChatGPT messages, one conversation object, Claude
artifacts, ChatGPT attachment names and 2023 citations, Agenvoy's empty summary."""

from __future__ import annotations

import json
from pathlib import Path

from engine import Memory
from engine.importers import agenvoy, chatgpt, claude
from engine.importers.chatgpt_markers import clean
from tests.clirun import run_cli
from tests.engine.agenvoydata import write_history
from tests.engine.exportdata import (
    T0,
    browser_export,
    claude_artifact,
    claude_conversation,
    claude_message,
    gpt_conversation,
    gpt_message,
    gpt_untyped,
    write_json,
)

ENV = {"MEMTRAY_EMBEDDER": "hash"}


def contents(home: Path, session: str) -> list[str]:
    with Memory.open(home, background=False) as mem:
        return [m.content for m in mem.iter_archive(session)]


def test_a_browser_exporters_single_untyped_conversation_is_imported_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_json(
        tmp_path / "ChatGPT-sourdough.json", browser_export("b0c1d2e3-0000-4000-8000-000000000016", 16)
    )

    first = run_cli(home, "import", "chatgpt", str(path), env=ENV)
    assert (first.returncode, first.stdout, first.stderr) == (
        0, "imported 16 messages into 1 session; left out: nothing\n", "",
    )  # fmt: skip
    again = run_cli(home, "import", "chatgpt", str(path), env=ENV)
    assert (again.returncode, again.stdout) == (
        0, "imported 0 messages into 1 session; 16 already there; left out: nothing\n",
    )  # fmt: skip
    stored = contents(home, "gpt-b0c1d2e3-0000-4000-8000-000000000016")
    assert stored == [f"{'user' if i % 2 == 0 else 'assistant'} line {i} about sourdough" for i in range(16)]


def test_untyped_parts_keep_text_and_count_what_is_not(tmp_path: Path) -> None:
    conversation = gpt_conversation(
        "c-untyped",
        [
            ("root", None, None),
            ("u", "root", gpt_untyped("user", ["part one", {"content_type": "image_asset_pointer"}], T0)),
            ("a", "u", gpt_untyped("assistant", [{"content_type": "text", "text": "part two"}], T0 + 1)),
            ("t", "a", gpt_message("assistant", ["thinking"], T0 + 2, content_type="thoughts")),
        ],
        "t",
    )
    [session] = chatgpt.read(write_json(tmp_path / "c.json", [conversation])).sessions
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "part one"),
        ("assistant", "part two"),
    ]
    assert session.skipped == {"image or file part": 1, "non-text message (thoughts)": 1}


def test_one_claude_conversation_object_is_accepted(tmp_path: Path) -> None:
    conversation = claude_conversation(
        "9b1d0000-0000-4000-8000-000000000001",
        [claude_message("human", "hi", "2024-05-01T04:34:56Z"), claude_message("assistant", "hello", "2024-05-01T04:34:58Z")],
    )  # fmt: skip
    [session] = claude.read(write_json(tmp_path / "one.json", conversation)).sessions
    assert [m.content for m in session.messages] == ["hi", "hello"]


def test_claude_artifact_bodies_are_kept_as_code(tmp_path: Path) -> None:
    body = "def add(a, b):\n    return a + b\n"
    reply = claude_message(
        "assistant",
        "",
        "2024-05-01T04:35:03Z",
        content=[
            {"type": "text", "text": "Here is the function."},
            claude_artifact("create", "Adder", "python", body),
            {"type": "tool_result", "name": "artifacts", "content": [{"type": "text", "text": "OK"}]},
            claude_artifact("update", "Adder", "", "    return b + a"),
            {"type": "tool_use", "name": "web_search", "input": {"query": "adders"}},
        ],
    )
    conversation = claude_conversation(
        "c-art", [claude_message("human", "write add()", "2024-05-01T04:35:00Z"), reply]
    )
    [session] = claude.read(write_json(tmp_path / "conversations.json", [conversation])).sessions
    assert session.messages[1].content == (
        "Here is the function.\n\n"
        f"[artifact: Adder]\n```python\n{body}\n```\n\n"
        "[artifact: Adder]\n```\n    return b + a\n```"
    )
    assert session.skipped == {"non-text part (tool_result)": 1, "non-text part (tool_use)": 1}


def test_an_artifact_holding_a_fence_gets_a_longer_one(tmp_path: Path) -> None:
    body = "# Notes\n```sh\nls\n```"
    reply = claude_message("assistant", "", "2024-05-01T04:35:03Z",
                           content=[claude_artifact("create", "Notes", "markdown", body)])  # fmt: skip
    [session] = claude.read(write_json(tmp_path / "c.json", [claude_conversation("c-f", [reply])])).sessions
    assert session.messages[0].content == f"[artifact: Notes]\n````markdown\n{body}\n````"


def test_chatgpt_attachment_names_are_kept_and_the_files_counted(tmp_path: Path) -> None:
    attachments = [
        {"id": "file-1", "name": "budget 2024.xlsx", "size": 9000, "mimeType": "application/vnd.ms-excel"},
        {"id": "file-2", "name": "notes\nline.txt"},
        {"id": "file-3"},
    ]
    conversation = gpt_conversation(
        "c-att",
        [("root", None, None), ("u", "root", gpt_message("user", ["Sum column B"], T0, attachments=attachments))],
        "u",
    )  # fmt: skip
    [session] = chatgpt.read(write_json(tmp_path / "c.json", [conversation])).sessions
    assert (
        session.messages[0].content
        == "Sum column B\n\n[attached: budget 2024.xlsx]\n[attached: notes line.txt]"
    )
    assert session.skipped == {"attachment (file not imported)": 3}


def test_2023_citations_become_links() -> None:
    text = "Rust 1.70 came out in June【7†source】 and sparse indexes by default【9†source】."
    first, second = text.index("【7"), text.index("【9")
    metadata = {
        "citations": [
            {"start_ix": first, "end_ix": first + len("【7†source】"), "citation_format_type": "tether_og",
             "metadata": {"type": "webpage", "title": "Announcing Rust 1.70.0",
                          "url": "https://blog.rust-lang.org/2023/06/01/Rust-1.70.0.html?utm_source=chatgpt.com",
                          "text": "", "extra": {"cited_message_idx": 7}}},
            {"start_idx": second, "end_idx": second + len("【9†source】"),
             "metadata": {"title": "", "url": "javascript:alert(1)"}},
            {"start_ix": 0, "end_ix": 4, "metadata": {"title": "not a marker", "url": "https://example.org/"}},
        ]
    }  # fmt: skip
    assert clean(text, metadata) == (
        "Rust 1.70 came out in June ([Announcing Rust 1.70.0](https://blog.rust-lang.org/2023/06/01/Rust-1.70.0.html))"
        " and sparse indexes by default."
    )
    assert clean(text, {"citations": [{"start_ix": 10_000, "end_ix": 10_005}]}) == (
        "Rust 1.70 came out in June and sparse indexes by default."
    )


def test_an_empty_agenvoy_summary_is_silence(tmp_path: Path) -> None:
    home = tmp_path / "agenvoy"
    write_history(home, "cli-5e6f7a8b", [
        {"role": "user", "content": "ping", "time": "2025-01-02T03:04:05Z"},
        {"role": "assistant", "content": "pong", "time": "2025-01-02T03:04:06Z"},
    ])  # fmt: skip
    (home / "sessions" / "cli-5e6f7a8b" / "summary.json").write_text("{}", encoding="utf-8")
    result = agenvoy.read(home / "sessions")
    [session] = result.sessions
    assert [m.content for m in session.messages] == ["ping", "pong"]
    assert session.summary is None and session.skipped == {} and result.skipped == {}


def test_single_object_detection_leaves_other_objects_refused(tmp_path: Path) -> None:
    path = write_json(tmp_path / "c.json", {"conversations": []})
    result = run_cli(tmp_path / "home", "import", "chatgpt", str(path), env=ENV)
    assert result.returncode == 1
    assert result.stderr == f"memtray: {path}: expected a JSON list of conversations, not dict\n"
    assert json.loads(path.read_text()) == {"conversations": []}


def test_a_2023_browsing_reply_keeps_its_links_through_the_import(tmp_path: Path) -> None:
    text = "SQLite 3.45 added JSONB【12†source】."
    start = text.index("【")
    citation = {
        "start_idx": start, "end_idx": start + len("【12†source】"), "citation_format_type": "tether_markdown",
        "invalid_reason": None,
        "metadata": {"type": "webpage", "title": "Release History", "url": "https://sqlite.org/changes.html",
                     "text": "", "pub_date": None, "extra": None},
    }  # fmt: skip
    reply = gpt_message("assistant", [text], T0 + 1, citations=[citation])
    conversation = gpt_conversation(
        "c-2023",
        [("root", None, None), ("u", "root", gpt_message("user", ["news?"], T0)), ("a", "u", reply)],
        "a",
    )
    [session] = chatgpt.read(write_json(tmp_path / "conversations.json", [conversation])).sessions
    assert (
        session.messages[1].content
        == "SQLite 3.45 added JSONB ([Release History](https://sqlite.org/changes.html))."
    )
