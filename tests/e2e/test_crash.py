"""Crash safety with real processes: writers killed with SIGKILL at random points, about 200 times.

Three kinds of writer are killed: plain appends, appends that compact history.json at nearly every step
(``max_history_bytes`` at its 4096-byte minimum), and ``memtray import jsonl`` of a 600-line file. The
processes are forked from a server that already imported the engine (``tests/e2e/zygote.py``), so each
kill costs milliseconds; the kill delays are random and short, so they land inside the write path (an
append takes a few milliseconds, mostly fsync).

After every kill: history.json is valid JSON and is one of the states the append protocol allows (the
archive's rows after the cut, possibly followed by an interrupted append's rows, possibly preceded by an
interrupted compaction's). At the end: the store opens without manual repair, every acknowledged message
is in the archive exactly once, nothing is there twice, and history.json equals the archive after the cut.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from engine import Memory
from tests.e2e.zygote import Zygote

PLAN = [("append", 70, 4 * 1024 * 1024, 0.15), ("compact", 70, 4096, 0.2), ("import", 60, 4096, 0.4)]
IMPORT_LINES = 600


def raw_state(home: Path, session: str) -> None:
    """history.json parses and is a state the protocol allows, checked without repairing anything."""
    path = home / "sessions" / session / "history.json"
    if not path.exists():
        return
    records = json.loads(path.read_bytes())
    assert isinstance(records, list)
    in_file = [(r["role"], r["content"]) for r in records]
    # Read-write, though it only reads: after a SIGKILL the WAL index may need the recovery that any
    # opener runs, and a mode=ro connection cannot run it (SQLITE_READONLY_RECOVERY).
    db = sqlite3.connect(home / ".store" / "history.db", timeout=30)
    try:
        db.execute("PRAGMA query_only=ON")
        meta = db.execute(
            "SELECT start_id, hot_last_id FROM message_meta WHERE session_id = ?", (session,)
        ).fetchone() or (0, 0)
        rows = db.execute(
            "SELECT id, role, content FROM messages WHERE session_id = ? ORDER BY id", (session,)
        ).fetchall()
    finally:
        db.close()
    start_id, hot_last = meta
    before = [(r[1], r[2]) for r in rows if r[0] < start_id]
    done = [(r[1], r[2]) for r in rows if start_id <= r[0] <= hot_last]
    pending = [(r[1], r[2]) for r in rows if r[0] > hot_last and r[0] >= start_id]
    for tail in (done + pending, done):
        if len(in_file) >= len(tail) and in_file[len(in_file) - len(tail) :] == tail:
            lead = in_file[: len(in_file) - len(tail)]
            assert not lead or before[len(before) - len(lead) :] == lead, "history.json has unknown messages"
            return
    raise AssertionError(f"history.json of {session} is not the archive after the cut")


def imported(round_no: int, i: int) -> str:
    return f"i{round_no}-{i} " + "z" * 200


def import_file(folder: Path, round_no: int) -> Path:
    path = folder / f"import-{round_no}.jsonl"
    t0 = 1_700_000_000 * 1_000_000_000 + round_no * 10_000
    with path.open("w", encoding="utf-8") as f:
        for i in range(IMPORT_LINES):
            role = "user" if i % 2 == 0 else "assistant"
            f.write(json.dumps({"role": role, "content": imported(round_no, i), "sendAt": t0 + i}) + "\n")
    return path


@pytest.mark.skipif(os.name != "posix", reason="fork and SIGKILL are POSIX")
def test_writers_killed_at_random_points_lose_no_acknowledged_message(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rng = random.Random(20240609)
    zygote = Zygote(tmp_path / "writers.log")
    kills = finished = 0
    acked: Counter[str] = Counter()  # content -> 1 for every acknowledged message
    files: list[Path] = []
    try:
        for mode, rounds, max_bytes, max_delay in PLAN:
            session = f"crash-{mode}"
            for round_no in range(rounds):
                acks = tmp_path / f"acks-{mode}-{round_no}"
                delay = rng.uniform(0.002, max_delay)
                if mode == "import":
                    path = import_file(tmp_path, round_no)
                    files.append(path)
                    result = zygote.run(
                        job="import",
                        home=str(home),
                        session=session,
                        path=str(path),
                        acks=str(acks),
                        delay=delay,
                    )
                else:
                    prefix = f"{mode}{round_no}"
                    result = zygote.run(
                        job="append",
                        home=str(home),
                        session=session,
                        prefix=prefix,
                        count=10_000,
                        max_bytes=max_bytes,
                        acks=str(acks),
                        delay=delay,
                    )
                if result["killed"]:
                    kills += 1
                else:
                    assert result["status"] == 0, result
                    finished += 1
                lines = acks.read_text().split() if acks.exists() else []
                if mode == "import" and lines == ["done"]:
                    for i in range(IMPORT_LINES):
                        acked[imported(round_no, i)] += 1
                elif mode != "import":
                    for n in lines:
                        acked[f"{prefix}-{n}-q " + "x" * 300] += 1
                        acked[f"{prefix}-{n}-a " + "y" * 300] += 1
                raw_state(home, session)
        survived = kills
        # Every import again, to completion: an interrupted import is finished, nothing doubles.
        for round_no, path in enumerate(files):
            result = zygote.run(
                job="import",
                home=str(home),
                session="crash-import",
                path=str(path),
                acks=str(path) + ".ack",
                delay=120,
            )
            assert not result["killed"] and result["status"] == 0
            for i in range(IMPORT_LINES):
                acked[imported(round_no, i)] = 1
    finally:
        zygote.close()

    checked = 0
    with Memory.open(home) as mem:  # opens without manual repair
        with mem._store.read() as conn:
            rows = conn.execute("SELECT session_id, content FROM messages").all()
        archived = Counter(content for _, content in rows)
        doubled = [c[:40] for c, n in archived.items() if n > 1]
        assert not doubled, f"archived twice: {doubled[:5]}"
        for content in acked:
            assert archived[content] == 1, f"acknowledged but not archived: {content[:40]}"
            checked += 1
        for mode, *_ in PLAN:
            session = f"crash-{mode}"
            hot = mem.history(session)  # finishes an interrupted append or compaction, if any
            cut = mem.compaction_cut(session)
            with mem._store.read() as conn:
                tail = conn.execute(
                    "SELECT id, content FROM messages WHERE session_id = ? AND id >= ? ORDER BY id",
                    (session, cut),
                ).all()
            assert [(m.id, m.content) for m in hot] == [(r[0], r[1]) for r in tail]
            on_disk = json.loads((home / "sessions" / session / "history.json").read_bytes())
            assert [r["content"] for r in on_disk] == [m.content for m in hot]
    print(
        f"\ncrash test: {survived} SIGKILLs survived ({finished} writers finished first); "
        f"{checked} acknowledged messages checked exactly once among {len(rows)} archived"
    )
    assert survived >= 150 and checked >= 5_000
