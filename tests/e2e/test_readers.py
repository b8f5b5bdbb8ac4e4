"""Reading never needs to write: real ``memtray`` processes read while another program holds the database's
write lock, on a full disk, and leave the database's files as they were.

The reading commands (``history``, ``context``, ``sessions``, ``search``, ``export``) used to do
bookkeeping writes when the memory opened (migrations and FTS setup under the write lock, the error
memory's purge) and when history.json was read (marking the last append as done), so they waited for
another program's write transaction (up to the 30 s busy timeout) and failed on a full disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from engine import Memory, Message
from tests.clirun import run_cli
from tests.e2e.test_limits import small_disk

T0 = 1_700_000_000 * 1_000_000_000
SESSION = "cli-read"
READS = [
    ["history", "--session", SESSION, "--json"],
    ["context", "--session", SESSION, "--json"],
    ["sessions", "--json"],
    ["search", "zebra", "--match", "keyword", "--json"],
    ["search", "zebra", "--json"],
    ["export", "--session", SESSION, "--format", "jsonl"],
]
HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
db.execute("BEGIN IMMEDIATE")
db.execute("INSERT INTO settings(key, value) VALUES ('holder', 'x') ON CONFLICT(key) DO UPDATE SET value = 'y'")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


def fill(home: Path) -> list[str]:
    """A compacted session whose last append is not yet confirmed (as any session after an append)."""
    contents = []
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=8192)
        for n in range(40):
            pair = [f"zebra question {n} " + "q" * 200, f"sendAt: 2026-08-20 02:30:00\nanswer {n}"]
            mem.append(
                SESSION, [Message("user", pair[0], T0 + 2 * n), Message("assistant", pair[1], T0 + 2 * n + 1)]
            )
            contents += pair
        assert mem.compaction_cut(SESSION) > 0
        assert mem.wait_idle(timeout=120)  # every message embedded: a search has nothing to write
        return [m.content for m in mem.history(SESSION)]


def run(home: Path, args: list[str], timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run_cli(home, *args, timeout=timeout)
    return done, time.monotonic() - started


def check_output(args: list[str], out: str, hot: list[str]) -> None:
    if args[0] == "history":
        assert [m["content"] for m in json.loads(out)] == hot
    elif args[0] == "context":
        assert "answer 39" in json.loads(out)["messages"][-2]["content"]
    elif args[0] == "sessions":
        assert SESSION in [s["id"] for s in json.loads(out)]
    elif args[0] == "search":
        assert "zebra" in json.loads(out)[0]["content"]
    else:
        assert [json.loads(line)["content"] for line in out.splitlines()][-len(hot) :] == hot


def digests(home: Path) -> dict[str, str]:
    """The database's bytes (the -shm file is shared memory, which readers update, so it is left out)."""
    store = home / ".store"
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(store.glob("history.db*"))
        if not p.name.endswith("-shm")
    }


def test_reads_do_not_wait_for_another_programs_write_lock(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(home / ".store" / "history.db"), "300"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        for args in READS:
            done, seconds = run(home, args, timeout=60)
            assert done.returncode == 0, (args, done.stderr)
            assert done.stderr == "", (args, done.stderr)
            assert seconds < 15, f"{args[0]} waited {seconds:.1f}s for the write lock"  # busy timeout: 30 s
            check_output(args, done.stdout, hot)
    finally:
        holder.kill()
        holder.wait()


def test_reads_leave_the_database_files_as_they_were(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    before = digests(home)
    for args in READS:
        done, _ = run(home, args)
        assert done.returncode == 0, (args, done.stderr)
        check_output(args, done.stdout, hot)
        assert digests(home) == before, f"{args[0]} wrote to the database"


def test_reads_work_on_a_full_disk(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "8m") as disk:
        home = disk / "home"
        hot = fill(home)
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:  # fill the disk to the last byte
            for size in (1 << 16, 1):
                try:
                    while True:
                        os.write(fd, b"x" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)
        for args in READS:
            done, _ = run(home, args)
            assert done.returncode == 0, (args, done.stderr)
            check_output(args, done.stdout, hot)
