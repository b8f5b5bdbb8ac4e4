"""Damaged session files do not brick a session: real ``memtray`` processes move them aside with a word
and rebuild them from the archive where they can (history.json), or start over (summary.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Memory, Message
from tests.clirun import run_cli

T0 = 1_700_000_000 * 1_000_000_000
SESSION = "cli-dmg"


def fill(home: Path) -> list[str]:
    with Memory.open(home, background=False) as mem:
        mem.update_settings(max_history_bytes=8192)
        for n in range(20):
            mem.append(
                SESSION,
                [
                    Message("user", f"q{n} " + "x" * 300, T0 + 2 * n),
                    Message("assistant", f"a{n}", T0 + 2 * n + 1),
                ],
            )
        return [m.content for m in mem.history(SESSION)]


@pytest.mark.parametrize("depth", [100_000, 3_000])
def test_a_deeply_nested_history_file_is_moved_aside_and_rebuilt(tmp_path: Path, depth: int) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    path = home / "sessions" / SESSION / "history.json"
    path.write_text("[" * depth + "]" * depth)
    done = run_cli(home, "history", "--session", SESSION, "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "moved aside to history.json.corrupt-" in done.stderr
    assert [m["content"] for m in json.loads(done.stdout)] == hot
    assert len(list(path.parent.glob("history.json.corrupt-*"))) == 1
    done = run_cli(home, "append", "--session", SESSION, "--role", "user", "--content", "after the damage")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    done = run_cli(home, "history", "--session", SESSION, "--json")
    assert [m["content"] for m in json.loads(done.stdout)] == [*hot, "after the damage"]


def test_an_append_to_a_session_with_a_deeply_nested_history_file_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    path = home / "sessions" / SESSION / "history.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    done = run_cli(home, "append", "--session", SESSION, "--role", "user", "--content", "next")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "history.json.corrupt-" in done.stderr
    assert [r["content"] for r in json.loads(path.read_text())] == [*hot, "next"]


def test_a_summary_of_the_wrong_types_does_not_crash_context(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fill(home)
    summary = home / "sessions" / SESSION / "summary.json"
    summary.write_text(json.dumps({"key_decisions": 5, "past_discussions": {}, "current_discussion": 3}))
    (home / "sessions" / SESSION / ".summary_cursor").write_text("2023-11-14 22:13:59\n")
    done = run_cli(home, "context", "--session", SESSION, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "summary.json.corrupt-" in done.stderr, done.stderr
    assert json.loads(done.stdout)["summary"] is None
    assert not summary.exists() and not (home / "sessions" / SESSION / ".summary_cursor").exists()
    done = run_cli(home, "context", "--session", SESSION, "--json")  # nothing left to say
    assert done.returncode == 0 and done.stderr == "", done.stderr
