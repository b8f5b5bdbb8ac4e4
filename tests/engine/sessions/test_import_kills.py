"""An import killed (SIGKILL) while two of its batches are in flight: one batch's history.json files being
written by the import's file thread while the next batch's rows are committed already
(:class:`engine.sessions.batchimport.BatchImport`). Opening the memory again writes the files both batches
lacked, every archived message is in its session's history.json once, and the same import run again
stores the rest, once."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from engine import Memory
from tests.clirun import ROOT

SESSIONS, PER = 400, 100  # batches of 50 sessions (5,000 messages): 8 batches
BATCH_SESSIONS = 50

CHILD = f"""
import sys
from engine import Memory
from engine.imported import ImportedSession
from engine.messages import Message

export = [
    ImportedSession(
        f"conv-{{s:04d}}",
        [Message("user", f"note {{s}}-{{i}} otter{{s}}x{{i}} " + "filler " * 20, 10**18 + s * {PER} + i)
         for i in range({PER})],
    )
    for s in range({SESSIONS})
]
with Memory.open(sys.argv[1], background=False) as memory:
    report = memory.import_sessions(export)
    print(report.messages_added, report.messages_already_present)
"""


def run_import(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_with_two_batches_in_flight(home: Path, runs: int) -> int:
    """Start the import and SIGKILL it the moment more than one batch's sessions wait for their
    history.json (``unsettled_sessions``), ``runs`` times; how many runs were killed so."""
    database = home / ".store" / "history.db"
    killed = 0
    for _ in range(runs):
        proc = run_import(home)
        watch = sqlite3.connect(database, timeout=5)
        try:
            deadline = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    waiting = watch.execute("SELECT COUNT(*) FROM unsettled_sessions").fetchone()[0]
                except sqlite3.OperationalError:  # busy for a moment
                    waiting = 0
                if waiting > BATCH_SESSIONS:
                    proc.kill()  # SIGKILL on POSIX, TerminateProcess on Windows
                    killed += 1
                    break
                time.sleep(0.001)
        finally:
            watch.close()
        proc.communicate(timeout=120)
    return killed


def on_disk(memory: Memory, session: str) -> list[str]:
    path = memory.paths.history_file(session)
    return [r["content"] for r in json.loads(path.read_bytes())] if path.exists() else []


def check_whole(memory: Memory) -> int:
    """Every archived session's history.json is its archive (nothing lost, nothing twice), nothing is
    left unsettled, and the full-text indexes agree with the messages; how many messages."""
    with memory._store.read() as conn:
        total, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM messages").one()
        unsettled = conn.execute("SELECT COUNT(*) FROM unsettled_sessions").scalar_one()
        sessions = [str(r[0]) for r in conn.execute("SELECT DISTINCT session_id FROM messages")]
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
        conn.execute("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
    assert total == distinct and unsettled == 0
    for session in sessions:
        assert on_disk(memory, session) == [m.content for m in memory.iter_archive(session)], session
    return int(total)


def test_an_import_killed_with_two_batches_in_flight_loses_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Memory.open(home, background=False).close()
    killed = kill_with_two_batches_in_flight(home, 3)
    assert killed >= 1, "no run was killed while two batches were in flight"
    with Memory.open(home, background=False) as memory:  # opening writes the files the kill left
        stored = check_whole(memory)
        assert 2 * BATCH_SESSIONS * PER <= stored < SESSIONS * PER
    proc = run_import(home)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    added, present = map(int, out.split())
    assert (added, present) == (SESSIONS * PER - stored, stored)
    with Memory.open(home, background=False) as memory:
        assert check_whole(memory) == SESSIONS * PER
        hits = memory.search("otter399x99", match="keyword", scope="all")
        assert [h.message.content for h in hits] == ["note 399-99 otter399x99 " + "filler " * 20]
