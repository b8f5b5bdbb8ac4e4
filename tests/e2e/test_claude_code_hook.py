"""The documented Claude Code hook: ``memtray import claude-code --hook`` run as Claude Code runs a ``Stop``
hook — a shell command with the hook's JSON on standard input — imports the transcript incrementally and
never blocks Claude (exit 0, even on bad input)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine import Memory
from tests.engine.transcriptdata import (
    CC_SESSION,
    append_jsonl,
    cc_prompt,
    cc_reply,
    claude_code_lines,
    text,
    write_jsonl,
)

# The command line the README puts in ~/.claude/settings.json, with memtray started as this test's Python.
HOOK = "{python} -c 'from desktop.launcher import main; import sys; sys.exit(main())' --home {home} import claude-code --hook"


def run_hook(home: Path, payload: object) -> subprocess.CompletedProcess[str]:
    command = HOOK.format(python=sys.executable, home=home)
    return subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMTRAY_EMBEDDER": "hash"},
        cwd=Path(__file__).resolve().parents[2],
    )


def stored(home: Path) -> list[str]:
    with Memory.open(home, background=False) as mem:
        (info,) = mem.sessions()
        return [m.content for m in mem.iter_archive(info.id)]


def test_a_stop_hook_imports_each_turn_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    transcript = write_jsonl(
        tmp_path / "projects" / "-home-u-app" / f"{CC_SESSION}.jsonl", claude_code_lines()
    )
    payload = {
        "session_id": CC_SESSION,
        "transcript_path": str(transcript),
        "cwd": "/home/u/app",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    first = run_hook(home, payload)
    assert first.returncode == 0, first.stderr
    before = stored(home)
    assert "Add a retry to the fetch helper" in before and "Done: each retry is logged." in before
    append_jsonl(transcript, [cc_prompt(40, "And a timeout?"), cc_reply(41, [text("Added a 10 s timeout.")])])
    second = run_hook(home, {**payload, "stop_hook_active": True})
    assert second.returncode == 0, second.stderr
    assert stored(home) == [*before, "And a timeout?", "Added a 10 s timeout."]
    assert run_hook(home, payload).returncode == 0 and stored(home) == [
        *before,
        "And a timeout?",
        "Added a 10 s timeout.",
    ]


def test_a_hook_with_bad_input_says_so_and_does_not_block_claude(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for payload in (
        {"hook_event_name": "Stop"},
        {"transcript_path": str(tmp_path / "missing.jsonl")},
        "nonsense",
    ):
        result = run_hook(home, payload)
        assert result.returncode == 0
        assert "nothing imported" in result.stderr and "Traceback" not in result.stderr
