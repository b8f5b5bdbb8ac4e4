"""``memtray import claude-code|codex --hook`` as the agents run it: JSON on standard input, the transcript
imported incrementally, and always exit 0 with exactly one line, even when the home cannot be used."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from engine import Memory
from tests.clirun import run_cli
from tests.engine.transcriptdata import (
    CC_SESSION,
    CODEX_SESSION,
    CWD,
    append_jsonl,
    claude_code_lines,
    codex_lines,
    codex_turn,
    write_jsonl,
)

ENV = {"MEMTRAY_EMBEDDER": "hash"}
ROLLOUT = f"sessions/2026/01/18/rollout-2026-01-18T02-01-28-{CODEX_SESSION}.jsonl"


def codex_stop(transcript: Path, active: bool = False) -> dict[str, object]:
    """The ``Stop`` hook input Codex documents: the common fields, then the turn's."""
    return {
        "session_id": CODEX_SESSION, "transcript_path": str(transcript), "cwd": CWD,
        "hook_event_name": "Stop", "model": "gpt-5-codex", "turn_id": "turn-2",
        "stop_hook_active": active, "last_assistant_message": "All green.",
    }  # fmt: skip


def hook(home: Path, fmt: str, payload: object, **options: object) -> subprocess.CompletedProcess[str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return run_cli(home, "import", fmt, "--hook", stdin=text, env=ENV, **options)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The hook's only line, after checking it exited 0 and said nothing else."""
    assert result.returncode == 0
    lines = (result.stdout + result.stderr).splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def codex_said(result: subprocess.CompletedProcess[str]) -> str:
    """What a Codex hook said: its stdout is one Stop-hook JSON answer."""
    line = one_line(result)
    assert result.stderr == ""
    answer = json.loads(line)
    assert set(answer) == {"continue", "systemMessage"} and answer["continue"] is True
    return str(answer["systemMessage"])


def stored(home: Path, session: str) -> list[str]:
    with Memory.open(home, background=False) as mem:
        return [m.content for m in mem.iter_archive(session)]


def test_the_codex_stop_hook_imports_each_turn_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rollout = write_jsonl(tmp_path / ".codex" / ROLLOUT, codex_lines())
    assert codex_said(hook(home, "codex", codex_stop(rollout))) == (
        "memtray: imported 4 messages into 1 session; left out: 4 structural line (session meta, turn "
        "context, token count …), 4 the same turn as an event (one stream is imported), 4 tool call or "
        "result, 2 injected context, 2 thinking, 1 developer or system message"
    )
    session = f"codex-{CODEX_SESSION}"
    before = stored(home, session)
    assert before == [
        "Fix the flaky date test", "The test assumed UTC; I pinned the timezone.", "Run it again", "All green.",
    ]  # fmt: skip

    append_jsonl(rollout, codex_turn(20, "And the other test?", "Pinned too."))
    assert codex_said(hook(home, "codex", codex_stop(rollout, active=True))).startswith(
        "memtray: imported 2 messages into 1 session"
    )
    assert codex_said(hook(home, "codex", codex_stop(rollout))).startswith(
        "memtray: imported 0 messages into 0 sessions"
    )
    assert stored(home, session) == [*before, "And the other test?", "Pinned too."]


def test_the_claude_code_hook_says_one_line_on_stdout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    transcript = write_jsonl(
        tmp_path / "projects" / "-home-u-app" / f"{CC_SESSION}.jsonl", claude_code_lines()
    )
    result = hook(home, "claude-code", {"transcript_path": str(transcript), "hook_event_name": "SessionEnd"})
    assert one_line(result).startswith("memtray: imported ") and result.stderr == ""


def _damaged_db(home: Path) -> None:
    (home / ".store").mkdir(parents=True)
    (home / ".store" / "history.db").write_bytes(b"this is not a database\n" * 200)


def _file_for_home(home: Path) -> None:
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("a file where the home folder should be", encoding="utf-8")


def _no_writes() -> None:
    """In the child: every write of a byte to a file fails (EFBIG), as on a disk that takes nothing."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import resource  # POSIX only, as is the case that needs it

    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
@pytest.mark.parametrize(
    "case",
    [
        "file-for-home",
        "damaged-db",
        pytest.param(
            "disk-takes-nothing",
            marks=pytest.mark.skipif(
                os.name != "posix",
                reason="a full disk is made with RLIMIT_FSIZE in a preexec_fn (POSIX only)",
            ),
        ),
        "bad-input",
        "no-path",
        "missing-transcript",
    ],
)
def test_a_hook_always_exits_0_with_one_line(tmp_path: Path, fmt: str, case: str) -> None:
    home = tmp_path / "missing" / "home"
    transcript = write_jsonl(tmp_path / "t" / f"rollout-2026-01-18T02-01-28-{CODEX_SESSION}.jsonl",
                             codex_lines() if fmt == "codex" else claude_code_lines())  # fmt: skip
    payload: object = {"transcript_path": str(transcript), "hook_event_name": "Stop"}
    options: dict[str, object] = {}
    if case == "file-for-home":
        _file_for_home(home)
    elif case == "damaged-db":
        _damaged_db(home)
    elif case == "disk-takes-nothing":
        options["preexec_fn"] = _no_writes
    elif case == "bad-input":
        payload = "{not json"
    elif case == "no-path":
        payload = {"hook_event_name": "Stop"}
    else:
        payload = {"transcript_path": str(tmp_path / "gone.jsonl")}
    result = hook(home, fmt, payload, **options)
    said = codex_said(result) if fmt == "codex" else one_line(result)
    assert said.startswith("memtray: nothing imported from the hook: "), said
    assert "internal error" not in said
    if fmt == "claude-code":
        assert result.stdout == ""  # a problem goes to stderr, which Claude Code shows


def test_hook_goes_only_with_an_agent_format(tmp_path: Path) -> None:
    result = hook(tmp_path / "home", "chatgpt", {"transcript_path": "/x"})
    assert one_line(result) == (
        "memtray: nothing imported from the hook: --hook goes with 'memtray import claude-code or codex'"
    )
