"""Watching agents' folders: each run imports only the turns appended since the last one, for Claude Code
and Codex alike; folders that are missing or hold no transcripts are counted, not fatal."""

from __future__ import annotations

from pathlib import Path

from engine import Memory, Settings, agent_folders, import_agent_folders
from engine.importers.reasons import WATCHED_FOLDER_EMPTY, WATCHED_FOLDER_MISSING
from engine.importers.watch import format_of
from tests.engine.transcriptdata import (
    CC_SESSION,
    CODEX_SESSION,
    append_jsonl,
    cc_prompt,
    cc_reply,
    claude_code_lines,
    codex_lines,
    codex_turn,
    text,
    write_jsonl,
)


def agents(home: Path) -> tuple[Path, Path, Path, Path]:
    """``~/.claude/projects`` and ``~/.codex/sessions`` below ``home``, one transcript in each."""
    claude, codex = home / ".claude" / "projects", home / ".codex" / "sessions"
    cc = write_jsonl(claude / "-home-u-app" / f"{CC_SESSION}.jsonl", claude_code_lines()[:6])
    rollout = write_jsonl(
        codex / "2026" / "01" / "18" / f"rollout-2026-01-18T02-01-28-{CODEX_SESSION}.jsonl", codex_lines()
    )
    return claude, codex, cc, rollout


def contents(memory: Memory, session: str) -> list[str]:
    return [m.content for m in memory.iter_archive(session)]


def test_each_run_imports_only_the_new_turns(tmp_path: Path, memory: Memory) -> None:
    claude, codex, cc, rollout = agents(tmp_path)
    first = import_agent_folders(memory, [claude, codex])
    assert (first.sessions, first.messages_added) == (2, 6)
    assert contents(memory, f"cc-{CC_SESSION}") == [
        "Add a retry to the fetch helper",
        "I added a retry with backoff.",
    ]

    append_jsonl(cc, [cc_prompt(30, "one more thing"), cc_reply(31, [text("sure")])])
    append_jsonl(rollout, codex_turn(20, "And the docs?", "Updated."))
    second = import_agent_folders(memory, [claude, codex])
    assert (second.sessions, second.messages_added, second.messages_already_present) == (2, 4, 0)
    assert contents(memory, f"cc-{CC_SESSION}")[-2:] == ["one more thing", "sure"]
    assert contents(memory, f"codex-{CODEX_SESSION}")[-2:] == ["And the docs?", "Updated."]

    third = import_agent_folders(memory, [claude, codex])  # nothing new: nothing read again
    assert (third.sessions, third.messages_added, third.unchanged) == (0, 0, 2)


def test_missing_and_foreign_folders_are_counted(tmp_path: Path, memory: Memory) -> None:
    claude, _codex, _cc, _rollout = agents(tmp_path)
    empty = tmp_path / "notes"
    empty.mkdir()
    (empty / "todo.txt").write_text("nothing here", encoding="utf-8")
    report = import_agent_folders(memory, [tmp_path / "gone", empty, claude])
    assert report.messages_added == 2
    assert report.skipped.get(WATCHED_FOLDER_MISSING) == 1 and report.skipped.get(WATCHED_FOLDER_EMPTY) == 1


def test_the_folders_watched_and_their_formats(tmp_path: Path) -> None:
    claude, codex, _cc, _rollout = agents(tmp_path)
    assert agent_folders(Settings(), home=tmp_path) == [claude, codex]  # the agents' own, where they exist
    assert agent_folders(Settings(), home=tmp_path / "elsewhere") == []
    chosen = Settings().replace(agent_folders=[str(codex)])
    assert agent_folders(chosen, home=tmp_path) == [codex]
    assert format_of(claude) == "claude-code" and format_of(codex) == "codex"
    moved = tmp_path / "backup"
    (claude / "-home-u-app").rename(moved)
    assert format_of(moved) == "claude-code"  # elsewhere, told by its lines
