"""A home memtray may not write still serves what only reads: history, sessions, search and export work
on a read-only home (nothing needs writing); a write says why it cannot, in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clirun import run_cli
from tests.diskfaults import read_only

ENV = {"MEMTRAY_EMBEDDER": "hash"}


def test_a_read_only_home_serves_reads_and_exports(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for n in range(3):
        done = run_cli(
            home, "append", "--session", "ro", "--role", "user", "--content", f"hello {n} world", env=ENV
        )
        assert done.returncode == 0, done.stderr
    out = tmp_path / "out.jsonl"
    with read_only(home):
        history = run_cli(home, "history", "--session", "ro", "--json", env=ENV)
        assert history.returncode == 0, history.stderr
        assert [m["content"] for m in json.loads(history.stdout)] == [f"hello {n} world" for n in range(3)]
        listed = run_cli(home, "sessions", env=ENV)
        assert listed.returncode == 0 and "ro\t" in listed.stdout, listed.stderr
        found = run_cli(home, "search", "hello", "--match", "keyword", env=ENV)
        assert found.returncode == 0 and found.stdout.count("hello") == 3, found.stderr
        exported = run_cli(home, "export", "--session", "ro", "--format", "jsonl", "-o", str(out), env=ENV)
        assert exported.returncode == 0, exported.stderr
        written = run_cli(home, "append", "--session", "ro", "--role", "user", "--content", "no", env=ENV)
        assert written.returncode == 1 and written.stderr.count("\n") == 1 and "--home" in written.stderr
    assert [json.loads(line)["content"] for line in out.read_text().splitlines()] == [
        f"hello {n} world" for n in range(3)
    ]
