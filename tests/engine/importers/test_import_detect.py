"""Every kind of history is recognised, and a reader given the wrong kind says which kind it is."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import ImportFormatError
from engine.importers import detect, readers
from engine.messages import Message
from engine.sessions.export import markdown_lines
from tests.engine.agenvoydata import write_db, write_history
from tests.engine.exportdata import claude_conversation, claude_message, gpt_linear, write_json
from tests.engine.transcriptdata import claude_code_lines, codex_legacy_lines, codex_lines, write_jsonl


def make(kind: str, root: Path) -> Path:
    """A small history of ``kind`` under ``root``; returns the path to give to ``memtray import``."""
    if kind == "chatgpt":
        return write_json(root / "conversations.json", [gpt_linear("c-1", ["a", "b"])])
    if kind == "chatgpt-split":
        write_json(root / "export" / "conversations-000.json", [gpt_linear("c-1", ["a", "b"])])
        return write_json(root / "export" / "conversations-001.json", [gpt_linear("c-2", ["a", "b"])]).parent
    if kind == "chatgpt-zip":
        with zipfile.ZipFile(root / "export.zip", "w") as zf:
            zf.writestr("conversations-000.json", json.dumps([gpt_linear("c-1", ["a", "b"])]))
        return root / "export.zip"
    if kind == "claude":
        conversation = claude_conversation("u-1", [claude_message("human", "x", "2025-02-03T10:00:00Z")])
        return write_json(root / "conversations.json", [conversation])
    if kind == "claude-code":
        return write_jsonl(root / "projects" / "-home-u-app" / "s.jsonl", claude_code_lines()).parent.parent
    if kind == "codex":
        return write_jsonl(
            root / "sessions" / "2026" / "01" / "18" / "rollout-a.jsonl", codex_lines()
        ).parents[3]
    if kind == "codex-legacy":
        return write_jsonl(root / "rollout-old.jsonl", codex_legacy_lines())
    if kind == "agenvoy":
        write_history(root / "agenvoy", "cli-1", [{"role": "user", "content": "x"}])
        write_db(root / "agenvoy" / ".store" / "history.db", [("cli-1", 0, "user", "x")], sender=False)
        return root / "agenvoy"
    if kind == "agenvoy-db":
        return write_db(root / "history.db", [("cli-1", 0, "user", "x", "alice")], sender=True)
    if kind == "jsonl":
        return write_jsonl(
            root / "chat.jsonl", [{"role": "user", "content": "hello", "sendAt": 1_736_600_000}]
        )
    if kind == "markdown":
        path = root / "cli-1.md"
        path.write_text(
            "".join(markdown_lines("cli-1", [Message("user", "hi", 1_736_600_000 * 10**9)])), encoding="utf-8"
        )
        return path
    raise AssertionError(kind)


KINDS = {
    "chatgpt": "chatgpt", "chatgpt-split": "chatgpt", "chatgpt-zip": "chatgpt", "claude": "claude",
    "claude-code": "claude-code", "codex": "codex", "codex-legacy": "codex", "agenvoy": "agenvoy",
    "agenvoy-db": "agenvoy", "jsonl": "jsonl", "markdown": "markdown",
}  # fmt: skip


@pytest.mark.parametrize("made", sorted(KINDS))
def test_every_kind_is_recognised(tmp_path: Path, made: str) -> None:
    assert detect.sniff(make(made, tmp_path)) == KINDS[made]


@pytest.mark.parametrize("made", sorted(KINDS))
@pytest.mark.parametrize("fmt", sorted(readers()))
def test_a_reader_given_another_kind_names_it(tmp_path: Path, made: str, fmt: str) -> None:
    path = make(made, tmp_path)
    kind = KINDS[made]
    reader = readers()[fmt]
    if kind == fmt:
        assert reader(path, None if fmt != "jsonl" else "cli-x").sessions
        return
    with pytest.raises(ImportFormatError) as caught:
        reader(path, "cli-x")
    said = str(caught.value)
    assert f"this looks like {detect.KINDS[kind].label}" in said
    command = detect.KINDS[kind].command
    assert f"use `{command}`" in said if command else "cannot be imported" in said


def test_wrong_kind_through_the_cli_is_one_line_and_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make("claude", tmp_path)

    code = main(["--home", str(tmp_path / "home"), "import", "chatgpt", str(path)])

    _, err = capsys.readouterr()
    assert code == 1
    assert err == f"memtray: {path}: this looks like a Claude export; use `memtray import claude`\n"


def test_a_list_of_something_else_is_not_a_chatgpt_export(tmp_path: Path) -> None:
    path = write_json(tmp_path / "conversations.json", [{"x": 1}, {"y": 2}])
    with pytest.raises(ImportFormatError, match="not a ChatGPT export"):
        readers()["chatgpt"](path, None)
    with pytest.raises(ImportFormatError, match="not a Claude export"):
        readers()["claude"](path, None)


def test_unknown_files_are_no_kind(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("just text\n", encoding="utf-8")
    (tmp_path / "data.json").write_text('{"a": 1}', encoding="utf-8")
    assert detect.sniff(tmp_path / "notes.txt") is None
    assert detect.sniff(tmp_path / "data.json") is None
    assert detect.sniff(tmp_path / "missing") is None
