"""``memtray import chatgpt`` of many conversations killed with SIGKILL at random points, then run again.

The import stores a batch of sessions at a time: one write transaction for their archive rows, then every
history.json. Kills land anywhere in that: before the commit, between it and the files, among the files.
After every kill each history.json is valid and a state the append protocol allows; after the import is
finally run to completion, every message of the export is in the archive exactly once, every session's
history.json equals its archive rows, and keyword search finds the last conversation.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine import Memory
from tests import rawdb
from tests.e2e.test_crash import raw_state
from tests.e2e.zygote import Zygote
from tests.engine.exportdata import T0, gpt_linear, write_json

CONVERSATIONS = 60
PER_CONVERSATION = 40
BATCH = 300  # messages per batch: 7 conversations, 9 batches
HOMES = 8
KILLS_PER_HOME = 4


def content(n: int, i: int) -> str:
    return f"c{n}-m{i} word{n}z 記憶體搜尋摘要對話 " + "memory archive search " * 6


def export(folder: Path) -> Path:
    conversations = [
        gpt_linear(f"k-{n:02d}", [content(n, i) for i in range(PER_CONVERSATION)], T0 + n * 1000)
        for n in range(CONVERSATIONS)
    ]
    return write_json(folder / "conversations.json", conversations)


def lacking(home: Path, n: int, counts: Counter[str]) -> bool:
    """Whether conversation ``n`` has archived messages its history.json lacks (killed between the two)."""
    stored = sum(1 for i in range(PER_CONVERSATION) if counts[content(n, i)])
    path = home / "sessions" / f"gpt-k-{n:02d}" / "history.json"
    return stored > (len(json.loads(path.read_bytes())) if path.exists() else 0)


def archived(home: Path) -> Counter[str]:
    """Each archived text and how often (nothing yet if the import was killed before the database was made)."""
    if not (home / ".store" / "history.db").exists():
        return Counter()
    db = rawdb.connect(home / ".store" / "history.db", timeout=30)
    try:
        db.execute("PRAGMA query_only=ON")
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages'").fetchone() is None:
            return Counter()
        return Counter(c for (c,) in db.execute("SELECT content FROM messages"))
    finally:
        db.close()


@pytest.mark.skipif(os.name != "posix", reason="fork and SIGKILL are POSIX")
def test_a_batched_import_killed_anywhere_stores_every_message_once(tmp_path: Path) -> None:
    path = export(tmp_path)
    total = CONVERSATIONS * PER_CONVERSATION
    rng = random.Random(20240610)
    zygote = Zygote(tmp_path / "importers.log")
    kills = partial = interrupted = 0
    homes = [tmp_path / f"home-{h}" for h in range(HOMES)]
    try:

        def run(home: Path, delay: float, tag: str, **arm: str) -> dict[str, Any]:
            acks = tmp_path / f"acks-{home.name}-{tag}"
            job = dict(job="import", format="chatgpt", batch_messages=BATCH, home=str(home), path=str(path))
            return zygote.run(**job, acks=str(acks), delay=delay, **arm)

        run(tmp_path / "home-warm-up", 120, "full")  # the fork server's first job also waits for its start
        calibration = run(tmp_path / "home-calibration", 120, "full")
        assert not calibration["killed"] and calibration["status"] == 0
        duration = float(calibration["armed_s"])  # from the fork to the exit
        for home in homes:
            for round_no in range(KILLS_PER_HOME):
                if round_no == 0:  # the moment a batch's history.json files are written: archived, not filed
                    filing = str(home / ".store" / "tmp" / "*.history.json.*.tmp")
                    result = run(home, 0.0, str(round_no), arm_glob=filing)
                else:
                    result = run(home, rng.uniform(0.0, 0.9 * duration), str(round_no))
                kills += bool(result["killed"])
                assert result["killed"] or result["status"] == 0, result
                counts = archived(home)
                assert all(n == 1 for n in counts.values()), "a message archived twice"
                partial += 0 < len(counts) < total
                for n in range(CONVERSATIONS):
                    raw_state(home, f"gpt-k-{n:02d}")  # history.json, if there is one, is a state allowed
                    interrupted += lacking(home, n, counts)
            result = run(home, 120, "finish")
            assert not result["killed"] and result["status"] == 0, result
    finally:
        zygote.close()

    for home in homes:
        counts = archived(home)
        assert len(counts) == total and all(n == 1 for n in counts.values())
        with Memory.open(home, background=False) as mem:
            for n in range(CONVERSATIONS):
                session = f"gpt-k-{n:02d}"
                rows = list(mem.iter_archive(session))
                assert [m.content for m in rows] == [content(n, i) for i in range(PER_CONVERSATION)]
                hot = mem.history(session)  # finishes an interrupted append, if any
                cut = mem.compaction_cut(session)
                assert [(m.id, m.content) for m in hot] == [
                    (m.id, m.content) for m in rows if (m.id or 0) >= cut
                ]
                on_disk = json.loads((home / "sessions" / session / "history.json").read_bytes())
                assert [r["content"] for r in on_disk] == [m.content for m in hot]
            hits = mem.search(f"word{CONVERSATIONS - 1}z", match="keyword", scope="all", limit=50)
            assert {h.message.session for h in hits} == {f"gpt-k-{CONVERSATIONS - 1:02d}"}
    print(
        f"\nbatched import: {kills} SIGKILLs ({partial} left a partial import, {interrupted} times a session "
        f"archived but not in history.json), every message once; {duration:.2f} s per import"
    )
    assert kills >= HOMES and partial >= HOMES // 2 and interrupted >= 1
