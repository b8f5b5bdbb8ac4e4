"""Claude Code and Codex transcripts: prompts and replies only, one session each, read incrementally."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import Memory
from engine.errors import ImportFormatError, InvalidInput
from engine.imported import ReadResult
from engine.importers import claude_code, codex, readers
from engine.importers.importstate import ImportState
from engine.importers.records import iso_to_ns
from engine.sessions import importing
from tests.engine.transcriptdata import (
    CC_SESSION,
    CODEX_SESSION,
    append_jsonl,
    cc_prompt,
    cc_reply,
    claude_code_lines,
    codex_legacy_lines,
    codex_lines,
    codex_meta,
    codex_turn,
    text,
    write_jsonl,
)

NS = 1_000_000_000


def project_file(root: Path, session: str = CC_SESSION) -> Path:
    return root / "projects" / "-home-u-app" / f"{session}.jsonl"


def test_claude_code_keeps_prompts_and_replies_only(tmp_path: Path) -> None:
    path = write_jsonl(project_file(tmp_path), claude_code_lines())

    [session] = claude_code.read(path).sessions

    assert session.session == f"cc-{CC_SESSION}"
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "Add a retry to the fetch helper"),
        ("assistant", "I added a retry with backoff."),
        ("user", "Also log each retry"),
        ("assistant", "Done: each retry is logged."),
        ("user", "Thanks, <b>ship it</b>"),
        ("assistant", "Shipped."),
    ]
    assert session.messages[0].send_at == iso_to_ns("2026-01-10T09:00:01.000Z")
    assert session.title == "app: Fetch retries"
    assert session.skipped == {
        "thinking": 1,
        "tool call or result": 2,
        "meta or injected context": 1,
        "slash command or its output": 2,
        "image or document (not imported)": 1,
        "interruption marker": 1,
        "subagent line": 2,
        "compaction summary": 1,
        "API error or synthetic message": 1,
        "structural line (system, summary, progress, snapshot …)": 3,
    }


def test_claude_code_title_falls_back_to_a_summary_then_the_first_prompt(tmp_path: Path) -> None:
    lines = [line for line in claude_code_lines() if line.get("type") != "ai-title"]
    with_summary = write_jsonl(tmp_path / "a" / "s1.jsonl", lines)
    bare = write_jsonl(tmp_path / "b" / "s2.jsonl", [cc_prompt(1, "  Why is\n the build slow?  ")])

    assert claude_code.read(with_summary).sessions[0].title == "app: Retry added to fetch helper"
    assert claude_code.read(bare).sessions[0].title == "app: Why is the build slow?"


def test_claude_code_folder_skips_subagents_and_other_kinds(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    write_jsonl(project_file(root), claude_code_lines())
    write_jsonl(project_file(root, "second"), [cc_prompt(1, "second session", sessionId="second-id")])
    write_jsonl(root / "projects" / "-home-u-app" / CC_SESSION / "subagents" / "agent-a1.jsonl",
                [cc_prompt(1, "sub", isSidechain=True)])  # fmt: skip
    write_jsonl(
        root / "projects" / "-home-u-app" / "agent-old.jsonl", [cc_prompt(1, "old sub", isSidechain=True)]
    )
    write_jsonl(root / "projects" / "-home-u-x" / "rollout.jsonl", codex_lines())
    write_jsonl(
        root / "history.jsonl", [{"display": "a prompt", "timestamp": 1, "project": "/x"}]
    )  # not read

    result = claude_code.read(root)

    assert sorted(s.session for s in result.sessions) == [f"cc-{CC_SESSION}", "cc-second-id"]
    assert result.skipped == {"subagent transcript": 2, "file that is not a Claude Code transcript": 1}


def test_codex_takes_the_events_not_the_injected_context(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "2026" / "01" / "18" / f"rollout-2026-01-18T02-01-28-{CODEX_SESSION}.jsonl",
                       codex_lines())  # fmt: skip

    [session] = codex.read(tmp_path).sessions

    assert session.session == f"codex-{CODEX_SESSION}"
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "Fix the flaky date test"),
        ("assistant", "The test assumed UTC; I pinned the timezone."),
        ("user", "Run it again"),
        ("assistant", "All green."),
    ]
    assert session.messages[0].send_at == iso_to_ns("2026-01-18T02:01:02.500Z")
    assert session.title == "app: Fix the flaky date test"
    assert session.skipped["the same turn as an event (one stream is imported)"] == 4
    assert session.skipped["tool call or result"] == 4
    assert session.skipped["thinking"] == 2
    assert session.skipped["developer or system message"] == 1
    assert path.exists()


def test_codex_without_events_falls_back_to_response_items(tmp_path: Path) -> None:
    lines = [line for line in codex_lines() if line["type"] != "event_msg"]
    path = write_jsonl(tmp_path / f"rollout-x-{CODEX_SESSION}.jsonl", lines)

    [session] = codex.read(path).sessions

    assert [m.content for m in session.messages] == [
        "Fix the flaky date test",
        "The test assumed UTC; I pinned the timezone.",
        "Run it again",
        "All green.",
    ]
    assert session.skipped["injected context"] == 2


def test_codex_rollout_before_the_envelope(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"rollout-2025-05-01T10-00-00-{CODEX_SESSION}.jsonl", codex_legacy_lines())

    [session] = codex.read(path).sessions

    start = iso_to_ns("2025-05-01T10:00:00.000Z")
    assert start
    assert [(m.role, m.content, m.send_at) for m in session.messages] == [
        ("user", "What does main.rs do?", start + 4),
        ("assistant", "It starts the CLI.", start + 6),
    ]
    assert session.session == f"codex-{CODEX_SESSION}"


def test_codex_session_id_from_the_file_name_when_meta_is_missing(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / f"rollout-2026-01-18T02-01-28-{CODEX_SESSION}.jsonl", codex_turn(2, "hi", "hello")
    )

    assert codex.read(path).sessions[0].session == f"codex-{CODEX_SESSION}"


# -- incremental -----------------------------------------------------------------------------------


def read_cc(path: Path, state: ImportState) -> ReadResult:
    return readers(state)["claude-code"](path, None)


def test_appended_lines_are_all_that_is_read_again(tmp_path: Path, memory: Memory) -> None:
    path = write_jsonl(project_file(tmp_path), claude_code_lines()[:6])
    state = ImportState.for_store(memory.paths.store_dir)

    first = read_cc(path, state)
    memory.import_sessions(first.sessions)
    state.save()
    append_jsonl(path, [cc_prompt(30, "one more thing"), cc_reply(31, [text("sure")])])
    state = ImportState.for_store(memory.paths.store_dir)  # as a new process would
    second = read_cc(path, state)
    state.save()
    third = read_cc(path, ImportState.for_store(memory.paths.store_dir))

    assert [m.content for m in first.sessions[0].messages] == [
        "Add a retry to the fetch helper",
        "I added a retry with backoff.",
    ]
    assert [m.content for m in second.sessions[0].messages] == ["one more thing", "sure"]
    assert second.sessions[0].title == first.sessions[0].title == "app: Add a retry to the fetch helper"
    assert (third.sessions, third.unchanged) == ([], 1)
    saved = json.loads((memory.paths.store_dir / "import-state.json").read_text(encoding="utf-8"))
    entry = saved["files"][str(path.absolute())]
    assert entry["offset"] == path.stat().st_size and entry["inode"] == path.stat().st_ino


def test_a_partial_last_line_waits_until_it_is_complete(tmp_path: Path) -> None:
    half = json.dumps(cc_reply(5, [text("I added a retry with backoff.")]))
    path = write_jsonl(project_file(tmp_path), claude_code_lines()[:2], tail=half[:40])
    state = ImportState(tmp_path / "state.json")

    first = read_cc(path, state)
    state.save()
    with path.open("a", encoding="utf-8") as handle:
        handle.write(half[40:])  # complete now, but still without its newline: still being written
    second = read_cc(path, state)
    state.save()
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n")
    third = read_cc(path, state)

    assert [m.content for m in first.sessions[0].messages] == ["Add a retry to the fetch helper"]
    assert (second.sessions, second.unchanged) == ([], 1)
    assert [m.content for m in third.sessions[0].messages] == ["I added a retry with backoff."]


def test_a_file_that_shrank_or_was_replaced_is_read_whole_again(tmp_path: Path) -> None:
    path = write_jsonl(project_file(tmp_path), claude_code_lines())
    state = ImportState(tmp_path / "state.json")
    read_cc(path, state)
    state.save()

    write_jsonl(path, claude_code_lines()[:2])  # rewritten shorter in place
    shrunk = read_cc(path, state)
    state.save()
    replacement = path.with_suffix(".new")
    write_jsonl(replacement, [*claude_code_lines()[:2], cc_reply(40, [text("replaced")])])
    os.replace(replacement, path)  # a new inode, longer than before
    replaced = read_cc(path, state)
    state.save()
    same_size = [*claude_code_lines()[:2], cc_reply(40, [text("REPLACED")])]
    write_jsonl(path, same_size)  # rewritten in place with the same size: the first bytes differ
    rewritten = read_cc(path, state)

    assert [m.content for m in shrunk.sessions[0].messages] == ["Add a retry to the fetch helper"]
    assert [m.content for m in replaced.sessions[0].messages] == [
        "Add a retry to the fetch helper",
        "replaced",
    ]
    assert [m.content for m in rewritten.sessions[0].messages][-1:] == ["REPLACED"]


def test_a_crash_before_the_state_is_saved_stores_nothing_twice(
    tmp_path: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importing, "BATCH_MESSAGES", 2)  # a batch per session: progress after each
    root = tmp_path / "projects"
    for n in range(3):
        write_jsonl(root / "p" / f"s{n}.jsonl", [cc_prompt(1, f"prompt {n}", sessionId=f"s{n}"),
                                                 cc_reply(2, [text(f"reply {n}")], sessionId=f"s{n}")])  # fmt: skip
    state = ImportState.for_store(memory.paths.store_dir)
    result = read_cc(root, state)

    def crash_after_the_first_session(done: int, total: int) -> None:
        raise KeyboardInterrupt  # killed after 2 of the 6 messages were stored

    with pytest.raises(KeyboardInterrupt):
        memory.import_sessions(result.sessions, crash_after_the_first_session)
    assert not (memory.paths.store_dir / "import-state.json").exists()  # the state was not saved

    state = ImportState.for_store(memory.paths.store_dir)
    again = read_cc(root, state)
    report = memory.import_sessions(again.sessions)
    state.save()

    assert (report.messages_added, report.messages_already_present) == (4, 2)
    for n in range(3):
        assert [m.content for m in memory.iter_archive(f"cc-s{n}")] == [f"prompt {n}", f"reply {n}"]


def test_codex_keeps_its_stream_from_one_read_to_the_next(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / f"rollout-{CODEX_SESSION}.jsonl", [codex_meta(), *codex_turn(2, "first", "one")]
    )
    state = ImportState(tmp_path / "state.json")
    first = readers(state)["codex"](path, None)
    state.save()
    append_jsonl(path, codex_turn(10, "second", "two"))

    second = readers(state)["codex"](path, None)

    assert [m.content for m in first.sessions[0].messages] == ["first", "one"]
    assert [m.content for m in second.sessions[0].messages] == ["second", "two"]
    assert second.sessions[0].session == f"codex-{CODEX_SESSION}" and second.sessions[0].title == "app: first"


def test_a_damaged_state_file_means_reading_everything_again(tmp_path: Path) -> None:
    path = write_jsonl(project_file(tmp_path), claude_code_lines()[:6])
    (tmp_path / "state.json").write_text("{not json", encoding="utf-8")

    result = read_cc(path, ImportState(tmp_path / "state.json"))

    assert len(result.sessions[0].messages) == 2


def test_transcript_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file"):
        claude_code.read(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFormatError, match=r"no transcript"):
        codex.read(tmp_path / "empty")
    two = tmp_path / "two"
    write_jsonl(two / "a.jsonl", [cc_prompt(1, "a", sessionId="a")])
    write_jsonl(two / "b.jsonl", [cc_prompt(1, "b", sessionId="b")])
    with pytest.raises(InvalidInput, match="--session needs exactly one"):
        claude_code.read(two, "cli-one")
    [only] = claude_code.read(two / "a.jsonl", "cli-one").sessions
    assert only.session == "cli-one"
