"""Real processes: a writer killed with SIGKILL loses no acknowledged message; two writers lose nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from engine import Memory

ROOT = Path(__file__).resolve().parents[2]


def start_writer(
    home: Path, session: str, prefix: str, count: int, max_bytes: int | None = None
) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "tests.e2e.writer", str(home), session, prefix, str(count)]
    if max_bytes:
        args.append(str(max_bytes))
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def archived_contents(mem: Memory, session: str) -> list[str]:
    with mem._store.read() as conn:
        return [
            r[0]
            for r in conn.execute("SELECT content FROM messages WHERE session_id = ? ORDER BY id", (session,))
        ]


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_killed_writer_loses_no_acknowledged_message(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rng = random.Random(7)
    acked: set[int] = set()
    kills = 0
    for round_no in range(6):
        proc = start_writer(home, "cli-crash", f"r{round_no}", 10_000, max_bytes=60_000)
        assert proc.stdout is not None
        wanted = rng.randint(3, 30)  # kill after this many acknowledgements, whatever the machine's load
        got = 0
        while got < wanted:
            line = proc.stdout.readline()
            if not line:
                break
            acked.add(round_no * 100_000 + int(line.split()[1]))
            got += 1
        time.sleep(rng.uniform(0, 0.05))  # land anywhere in the next append
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        kills += 1
        path = home / "sessions" / "cli-crash" / "history.json"
        json.loads(path.read_text(encoding="utf-8"))  # valid JSON after every kill
    assert kills == 6 and len(acked) > 20
    with Memory.open(home) as mem:
        hot = mem.history("cli-crash")  # replays an interrupted append, if any
        contents = archived_contents(mem, "cli-crash")
        counts = Counter(contents)
        assert all(c == 1 for c in counts.values()), "a message was archived twice"
        for key in acked:
            round_no, n = divmod(key, 100_000)
            assert counts[f"r{round_no}-{n}-q " + "x" * 300] == 1
            assert counts[f"r{round_no}-{n}-a " + "y" * 300] == 1
        cut = mem.compaction_cut("cli-crash")
        hot_ids = [m.id for m in hot]
        assert hot_ids == sorted(hot_ids) and (not cut or hot_ids[0] == cut)
        with mem._store.read() as conn:
            tail = conn.execute(
                "SELECT COUNT(*) FROM messages WHERE session_id='cli-crash' AND id >= ?", (cut,)
            ).scalar_one()
        assert tail == len(hot)  # history.json is exactly the archive's rows after the cut


def test_two_processes_appending_to_one_session_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Memory.open(home).close()
    writers = [start_writer(home, "cli-shared", name, 60) for name in ("left", "right")]
    for proc in writers:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    with Memory.open(home) as mem:
        history = [m.content for m in mem.history("cli-shared")]
        contents = archived_contents(mem, "cli-shared")
    assert len(contents) == 240 and len(set(contents)) == 240
    assert history == contents  # the file and the archive agree, in one order
    for name in ("left", "right"):
        mine = [c.split(" ")[0] for c in contents if c.startswith(name)]
        expected = [f"{name}-{n}-{k}" for n in range(60) for k in ("q", "a")]
        assert mine == expected  # each writer's messages stay in its order
