"""Faults of the environment in words: real ``memtray`` commands on a read-only home, on a full disk, and
on a home that is a file; the background embedder on a disk that fills up.

Every command must fail with exit status 1 and one line on stderr that says what to do, never a
traceback and never "internal error ... this is a bug". As root (file modes do not stop root), the
read-only home is a read-only bind mount and the full disk a small tmpfs (:mod:`tests.diskfaults`);
elsewhere the home loses its write bits and the full-disk tests are skipped.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path

import pytest

from engine import Memory, Message
from tests.clirun import run_cli
from tests.diskfaults import fill, read_only, small_disk

T0 = 1_700_000_000 * 1_000_000_000


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(home, *args, env={"GEMINI_API_KEY": "k3y_for_the_fault_tests", "MEMTRAY_EMBEDDER": "hash"})


def commands(tmp: Path) -> list[tuple[str, ...]]:
    jsonl = tmp / "import.jsonl"
    jsonl.write_text('{"role": "user", "content": "imported line"}\n')
    return [
        ("append", "--session", "cli-a", "--role", "user", "--content", "one more"),
        ("history", "--session", "cli-a"),
        ("search", "hello"),
        ("search", "hello", "--match", "keyword"),
        ("sessions",),
        ("import", "jsonl", str(jsonl), "--session", "cli-imp"),
        ("summarize", "--session", "cli-a"),
        ("compact", "--session", "cli-a"),
        ("remove", "--session", "cli-a"),
        ("errors", "list"),
    ]


def prepared(home: Path) -> None:
    for n in range(3):
        done = cli(home, "append", "--session", "cli-a", "--role", "user", "--content", f"hello {n} world")
        assert done.returncode == 0, done.stderr


READS = ("history", "search", "sessions", "errors", "compact")
"""Commands that only read (compact: here there is nothing to compact), so they may succeed where writing
fails."""


def assert_read_or_one_sentence(
    command: tuple[str, ...], done: subprocess.CompletedProcess[str], *expected: str
) -> None:
    """A read may work (reading never needs to write); anything else is one sentence saying what to do."""
    if command[0] in READS and done.returncode == 0:
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        return
    assert command[0] not in READS or "Traceback" not in done.stderr
    if command[0] == "summarize":  # Gemini is a closed port here: failing to reach it first is right too
        expected = (*expected, "cannot reach the service")
    assert_one_sentence(done, *expected)


def assert_one_sentence(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    err = done.stderr
    assert done.returncode == 1, (done.returncode, err)
    assert err.count("\n") == 1 and err.startswith("memtray: "), err
    assert "Traceback" not in err and "bug" not in err and "internal error" not in err, err
    assert any(word in err for word in expected), err


def test_every_command_on_a_read_only_home_says_so_in_one_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    prepared(home)
    with read_only(home) as how:
        expected = ("the file system is read-only",) if how == "mount" else ("permission denied",)
        for command in commands(tmp_path):
            done = cli(home, *command)
            assert_read_or_one_sentence(command, done, *expected)
            if done.returncode:
                assert "--home" in done.stderr  # what to do: another home, or make this one writable
    assert cli(home, "history", "--session", "cli-a").returncode == 0  # nothing was harmed


def test_every_command_on_a_full_disk_says_so_in_one_sentence(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "8m") as disk:
        home = disk / "home"
        prepared(home)
        filler = fill(disk)
        for command in commands(tmp_path):
            assert_read_or_one_sentence(command, cli(home, *command), "the disk is full")
        filler.unlink()
        assert cli(home, "history", "--session", "cli-a").returncode == 0


def test_a_home_that_is_a_file_is_one_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")
    for command in commands(tmp_path)[:5]:
        assert_one_sentence(cli(home, *command), "a file is where a folder should be")
    (tmp_path / "home2" / ".store").mkdir(parents=True, exist_ok=True)
    (tmp_path / "home2" / ".store" / "locks").write_text("a file where the locks folder goes")
    assert_one_sentence(cli(tmp_path / "home2", "sessions"), "a file is where a folder should be")


def test_the_background_embedder_says_a_full_disk_once_and_backs_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with small_disk(tmp_path / "disk", "8m") as disk:
        home = disk / "home"
        with Memory.open(home, background=False) as mem:  # queued, not embedded
            for n in range(40):
                mem.append("cli-q", [Message("user", f"note {n} " + os.urandom(1500).hex(), T0 + n)])
        caplog.set_level(logging.DEBUG, logger="memtray")
        with Memory.open(home, background=False) as mem:
            filler = fill(disk)
            mem.semantic._worker.start()
            time.sleep(5)  # the first batches fail, the thread backs off (2 s, then 4 s)
            failing = [
                r for r in caplog.records if r.name == "memtray.vectors" and r.levelno >= logging.WARNING
            ]
            assert len(failing) == 1 and "disk is full" in failing[0].getMessage()
            assert all(r.exc_info is None for r in caplog.records if r.name.startswith("memtray"))
            assert mem.semantic._worker._thread.is_alive()
            filler.unlink()
            assert mem.wait_idle(60)  # the space is back: the queue drains
            assert mem.semantic.status().queued == 0
    assert "can save again" in caplog.text
