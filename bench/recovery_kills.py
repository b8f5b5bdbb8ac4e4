"""Kill loops for the roads taken after something went wrong: ``memtray repair``, ``memtray forget`` and
``memtray import`` processes killed with SIGKILL at random points, then the next command run.

    python -m bench.recovery_kills [--kills 30] [--messages 3000] [--seed 22] [--only repair,forget,import]

Each loop starts real ``memtray`` processes (:mod:`tests.clirun`), kills each after a random delay
within the time a full run took (half the repair kills are aimed at the moment its journal appears, the
window where a repair used to lose the moved-aside file), then runs the next command as a user would
and checks the home from outside (SQLite read-only, the files' bytes):

- **repair**: a home with one garbled hot row. After the kill, ``memtray history`` (odd rounds) or
  ``memtray repair`` (even rounds) must finish the repair: every archived text comes back exactly as
  often as before the damage (lost, doubled: counted over ``(session, text, time)``).
- **forget**: ``memtray forget ID`` of a message holding a unique word. After the kill and the next
  open, the word is either everywhere it was (the kill came before the intent was recorded) or in no
  file of the home, and the session's history.json holds exactly its archived messages (``left``:
  anything else); then the forget is run again and the word must be in no file; every other message
  stays once.
- **import**: ``memtray import chatgpt`` of many conversations. After the kill and the next open, every
  session with archived rows has a history.json holding them (``lagging``); the import run to the end
  then stores every message once.

Prints one line per loop: kills, acknowledged, lost, doubled and the loop's own figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from engine import Memory, Message, textfold
from engine.embedders.hashing import HashEmbedder
from tests.clirun import CLI, ROOT, run_cli
from tests.engine.exportdata import gpt_linear, write_json

T0 = 1_700_000_000 * 1_000_000_000
ENV = {"MEMTRAY_EMBEDDER": "hash"}


@dataclass
class Tally:
    """One loop's figures."""

    name: str
    kills: int = 0
    acknowledged: int = 0
    lost: int = 0
    doubled: int = 0
    mid_work: int = 0
    """Kills that left work to finish (a repair journal, a forget intent, an import's lagging files)."""
    left: int = 0
    """Loop-specific failures: a forget half done after the next open, a session without its history.json."""

    def line(self) -> str:
        return (
            f"{self.name}: {self.kills} SIGKILLs ({self.mid_work} left work to finish), {self.acknowledged} "
            f"acknowledged, {self.lost} lost, {self.doubled} doubled, {self.left} half-done after the next command"
        )


def _start(home: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), *args],
        cwd=ROOT,
        env={**os.environ, **ENV},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _kill_after(
    process: subprocess.Popen[bytes], delay: float, armed: Callable[[], bool] | None = None
) -> bool:
    """SIGKILL ``process`` ``delay`` seconds after its start (or after ``armed()`` turned true); whether
    it was still running."""
    try:
        start = time.monotonic()
        if armed is not None:
            while not armed() and process.poll() is None and time.monotonic() - start < 60:
                time.sleep(0.002)
            start = time.monotonic()
        while time.monotonic() - start < delay:
            if process.poll() is not None:
                return False
            time.sleep(0.002)
        if process.poll() is not None:
            return False
        process.send_signal(signal.SIGKILL)
        return True
    finally:
        if process.poll() is None:  # an error above: the process is not left running
            process.send_signal(signal.SIGKILL)
        process.wait()


def _rows(home: Path) -> Counter[tuple[str, str, int]]:
    db = home / ".store" / "history.db"
    if not db.exists():
        return Counter()
    # Not read-only: after a kill, the first reader of a WAL database may have to rebuild its index (-shm),
    # which a read-only connection cannot ("attempt to write a readonly database"). It only reads.
    conn = sqlite3.connect(db, timeout=30)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages'").fetchone() is None:
            return Counter()
        return Counter(
            (str(s), str(c), int(t))
            for s, c, t in conn.execute("SELECT session_id, content, send_at FROM messages")
        )
    finally:
        conn.close()


def _files_holding(home: Path, word: str) -> list[str]:
    needle = word.encode()
    return [str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _timed(work: Callable[[], object]) -> float:
    started = time.monotonic()
    work()
    return time.monotonic() - started


# -- repair ---------------------------------------------------------------------------------------


def _damaged_home(home: Path, messages: int) -> Counter[tuple[str, str, int]]:
    """A home of ``messages`` messages in 5 compacted sessions, most of them "ok", with one garbled hot
    row; returns the archive's rows before the damage."""
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=16384)
        per = messages // 5
        for s in range(5):
            for b in range(0, per, 50):
                batch = [
                    Message(
                        "user" if i % 2 == 0 else "assistant",
                        "ok" if i % 3 else f"m{s}-{b + i} note",
                        T0 + b + i,
                    )
                    for i in range(min(50, per - b))
                ]
                mem.append(f"s{s}", batch)
        hot = mem.history("s0")
    before = _rows(home)
    conn = sqlite3.connect(home / ".store" / "history.db")
    conn.create_function(textfold.SQL_FUNCTION, 1, textfold.sql_fold, deterministic=True)  # the FTS triggers'
    conn.execute(
        "UPDATE messages SET content = CAST(X'C3FF28' AS TEXT) WHERE id = ?", (hot[len(hot) // 2].id,)
    )
    conn.commit()
    conn.close()
    return before


def repair_loop(work: Path, kills: int, messages: int, rng: random.Random) -> Tally:
    tally = Tally("repair")
    template = work / "repair-template"
    expected = _damaged_home(template, messages)
    calibration = work / "repair-calibration"
    shutil.copytree(template, calibration)
    duration = _timed(lambda: run_cli(calibration, "repair", env=ENV))
    journal = Path(".store") / "repair.journal"
    for round_no in range(kills):
        home = work / f"repair-{round_no}"
        shutil.copytree(template, home)
        process = _start(home, "repair")
        if round_no % 2:
            killed = _kill_after(process, rng.uniform(0.0, 0.5), armed=lambda h=home: (h / journal).exists())
        else:
            killed = _kill_after(process, rng.uniform(0.0, duration))
        tally.kills += killed
        tally.mid_work += (home / journal).exists()
        done = run_cli(home, *(("history", "--session", "s0") if round_no % 2 else ("repair",)), env=ENV)
        if done.returncode != 0:
            done = run_cli(home, "repair", env=ENV)  # the damage still there (killed before the move)
        assert done.returncode == 0, done.stderr
        if round_no % 2:
            run_cli(home, "repair", env=ENV)
        tally.acknowledged += sum(expected.values())
        after = _rows(home)
        tally.lost += sum((expected - after).values())
        tally.doubled += sum((after - expected).values())
        tally.left += (home / journal).exists()
        shutil.rmtree(home)
    return tally


# -- forget ---------------------------------------------------------------------------------------


def _forget_home(home: Path, messages: int) -> dict[int, str]:
    """A home of ``messages`` messages in 3 sessions (none compacted: each message is in both copies);
    returns the ids of messages, each holding a unique word."""
    words: dict[int, str] = {}
    with Memory.open(home, background=False, embedder=HashEmbedder()) as mem:
        per = messages // 3
        for s in range(3):
            for b in range(0, per, 100):
                batch = [
                    Message(
                        "user" if i % 2 == 0 else "assistant",
                        f"zq{s}x{b + i}zq words of the day {i % 7}",
                        T0 + b + i,
                    )
                    for i in range(min(100, per - b))
                ]
                for stored in mem.append(f"f{s}", batch):
                    assert stored.id is not None
                    words[stored.id] = stored.content.split()[0]
    return words


def _recorded(watch: sqlite3.Connection) -> bool:
    """Whether a forget's intent is recorded (seen through a read-only connection)."""
    try:
        return bool(watch.execute("SELECT COUNT(*) FROM forget_intents").fetchone()[0])
    except sqlite3.Error:  # busy or not made yet
        return False


def forget_loop(work: Path, kills: int, messages: int, rng: random.Random) -> Tally:
    tally = Tally("forget")
    home = work / "forget-home"
    words = _forget_home(home, messages)
    expected = _rows(home)
    duration = 0.0
    targets = rng.sample(sorted(words), kills + 1)
    first = targets.pop()
    duration = _timed(lambda: run_cli(home, "forget", str(first), env=ENV))
    expected = Counter({k: v for k, v in expected.items() if not k[1].startswith(words[first] + " ")})
    for round_no, target in enumerate(targets):
        word = words[target]
        process = _start(home, "forget", str(target))
        if round_no % 2:
            killed = _kill_after(process, rng.uniform(0.0, duration))
        else:  # aimed at the scrub: from the moment the intent is recorded
            watch = sqlite3.connect(f"file:{home / '.store' / 'history.db'}?mode=ro", uri=True, timeout=30)
            try:
                killed = _kill_after(process, rng.uniform(0.0, 0.05), armed=partial(_recorded, watch))
            finally:
                watch.close()
        tally.kills += killed
        tally.acknowledged += not killed
        db = sqlite3.connect(home / ".store" / "history.db", timeout=30)  # read-write: see _lagging
        tally.mid_work += bool(db.execute("SELECT COUNT(*) FROM forget_intents").fetchone()[0])
        db.close()
        assert run_cli(home, "sessions", env=ENV).returncode == 0  # the next open
        session = f"f{next(i for i in range(3) if word.startswith(f'zq{i}x'))}"
        archived = any(c.startswith(word + " ") for _, c, _ in _rows(home))
        hot = json.loads((home / "sessions" / session / "history.json").read_bytes())
        kept = Counter(c for s, c, _ in _rows(home) if s == session)
        if archived != any(r["content"].startswith(word + " ") for r in hot) or kept != Counter(
            r["content"] for r in hot
        ):
            tally.left += 1  # in one copy, not the other (or a message twice): half done after the next open
        elif not archived and _files_holding(home, word):
            tally.left += 1  # gone from both, its words still in a file
        done = run_cli(home, "forget", str(target), env=ENV)
        assert done.returncode == 0, done.stderr
        if _files_holding(home, word):
            tally.left += 1
        expected = Counter({k: v for k, v in expected.items() if not k[1].startswith(word + " ")})
    after = _rows(home)
    tally.lost += sum((expected - after).values())
    tally.doubled += sum((after - expected).values())
    return tally


# -- import ---------------------------------------------------------------------------------------


def _lagging(home: Path) -> int:
    """Sessions whose archived rows are not all in their history.json."""
    db = home / ".store" / "history.db"
    if not db.exists():
        return 0
    # Not read-only: after a kill, the first reader of a WAL database may have to rebuild its index (-shm),
    # which a read-only connection cannot ("attempt to write a readonly database"). It only reads.
    conn = sqlite3.connect(db, timeout=30)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages'").fetchone() is None:
            return 0
        counts = dict(
            conn.execute("SELECT session_id, COUNT(*) FROM messages GROUP BY session_id").fetchall()
        )
    finally:
        conn.close()
    lagging = 0
    for session, count in counts.items():
        path = home / "sessions" / str(session) / "history.json"
        held = len(json.loads(path.read_bytes())) if path.exists() else 0
        lagging += held < count
    return lagging


def _grew(watch: sqlite3.Connection, before: int) -> bool:
    """Whether the archive holds more than ``before`` messages (a batch was committed)."""
    try:
        return int(watch.execute("SELECT COUNT(*) FROM messages").fetchone()[0]) > before
    except sqlite3.Error:  # not made yet
        return False


def import_loop(work: Path, kills: int, conversations: int, rng: random.Random) -> Tally:
    tally = Tally("import")
    export = write_json(
        work / "conversations.json",
        [
            gpt_linear(
                f"k{n:03d}",
                [f"c{n} m{i} " + "memory words " * 8 for i in range(40)],
                1_714_538_096 + n * 1000,
            )
            for n in range(conversations)
        ],
    )
    calibration = work / "import-calibration"
    duration = _timed(lambda: run_cli(calibration, "import", "chatgpt", str(export), env=ENV))
    expected = _rows(calibration)
    for round_no in range(kills):
        home = work / f"import-{round_no}"
        process = _start(home, "import", "chatgpt", str(export))
        if round_no % 2:  # aimed: right after the first batch's rows are committed
            while not (home / ".store" / "history.db").exists() and process.poll() is None:
                time.sleep(0.002)
            watch = sqlite3.connect(f"file:{home / '.store' / 'history.db'}?mode=ro", uri=True, timeout=30)
            try:
                killed = _kill_after(process, rng.uniform(0.0, 0.02), armed=partial(_grew, watch, 0))
            finally:
                watch.close()
        else:
            killed = _kill_after(process, rng.uniform(0.0, duration))
        tally.kills += killed
        tally.mid_work += _lagging(home) > 0
        assert run_cli(home, "sessions", env=ENV).returncode == 0  # the next open
        tally.left += _lagging(home)
        done = run_cli(home, "import", "chatgpt", str(export), env=ENV)
        assert done.returncode == 0, done.stderr
        tally.acknowledged += sum(expected.values())
        after = _rows(home)
        tally.lost += sum((expected - after).values())
        tally.doubled += sum((after - expected).values())
        tally.left += _lagging(home)
        shutil.rmtree(home)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--only", default="repair,forget,import")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="memtray-kills-") as folder:
        work = Path(folder)
        for name in args.only.split(","):
            started = time.monotonic()
            if name == "repair":
                tally = repair_loop(work, args.kills, args.messages, rng)
            elif name == "forget":
                tally = forget_loop(work, args.kills, args.messages, rng)
            else:
                tally = import_loop(work, args.kills, max(20, args.messages // 10), rng)
            print(f"{tally.line()} ({time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
