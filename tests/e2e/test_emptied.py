"""A missing or zero-length history.db is not an empty memory: real ``memtray`` processes say so, and every
session's history.json is archived again (search and export find its messages) without waiting for an
append to that session."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Memory, Message
from tests.clirun import run_cli

T0 = 1_700_000_000 * 1_000_000_000


def fill(home: Path) -> dict[str, list[str]]:
    """Three sessions (one compacted, one private); each one's history.json contents."""
    with Memory.open(home, background=False) as mem:
        mem.update_settings(max_history_bytes=8192)
        for n in range(30):
            mem.append(
                "cli-long",
                [
                    Message("user", f"walrus q{n} " + "x" * 300, T0 + 2 * n),
                    Message("assistant", f"a{n}", T0 + 2 * n + 1),
                ],
            )
        mem.append("cli-short", [Message("user", "walrus hello", T0), Message("assistant", "   ", T0 + 1)])
        mem.append("priv-secret", [Message("user", "walrus private")])
        assert mem.compaction_cut("cli-long") > 0
        return {s: [m.content for m in mem.history(s)] for s in ("cli-long", "cli-short")}


def remove(db: Path) -> None:
    for path in db.parent.glob("history.db*"):
        path.unlink()


def truncate(db: Path) -> None:
    for path in db.parent.glob("history.db-*"):
        path.unlink()
    db.write_bytes(b"")


@pytest.mark.parametrize("damage", [remove, truncate])
def test_an_emptied_database_is_reported_and_rebuilt_from_history_files(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    db = home / ".store" / "history.db"
    damage(db)
    state = db.exists() and db.stat().st_size
    for _ in range(2):  # the check changes nothing: the same answer twice
        done = run_cli(home, "repair", "--check")
        assert done.returncode == 1, done.stdout + done.stderr
        assert "2 session(s) have messages in their history.json" in done.stdout
        assert ("missing" if damage is remove else "empty") in done.stdout
        assert (db.exists() and db.stat().st_size) == state

    done = run_cli(home, "search", "walrus", "--match", "keyword", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "had no messages although 2 session(s)" in done.stderr
    found = {h["content"] for h in json.loads(done.stdout)}
    assert "walrus hello" in found and any(c.startswith("walrus q29 ") for c in found)
    assert "walrus private" not in found  # a private chat is never archived

    for session, contents in hot.items():
        exported = run_cli(home, "export", "--session", session, "--format", "jsonl")
        assert exported.returncode == 0 and exported.stderr == "", exported.stderr
        assert [json.loads(line)["content"] for line in exported.stdout.splitlines()] == contents
        history = run_cli(home, "history", "--session", session, "--json")
        assert [m["content"] for m in json.loads(history.stdout)] == contents
        assert all(m["id"] is not None for m in json.loads(history.stdout))
    done = run_cli(home, "repair", "--check")
    assert done.returncode == 0 and "fine" in done.stdout, done.stdout
    with Memory.open(home, background=False) as mem:  # and it is never archived twice
        assert [m.content for m in mem.iter_archive("cli-short")] == hot["cli-short"]


def test_repair_rebuilds_an_emptied_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    truncate(home / ".store" / "history.db")
    done = run_cli(home, "repair")
    assert done.returncode == 0, done.stderr
    assert "archived again" in done.stdout and "2 session(s)" in done.stdout
    with Memory.open(home, background=False) as mem:
        for session, contents in hot.items():
            assert [m.content for m in mem.iter_archive(session)] == contents
    assert run_cli(home, "repair", "--check").returncode == 0
