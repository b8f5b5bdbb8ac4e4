"""Kill loop: ``memtray append`` and ``memtray compact`` processes killed with SIGKILL at random points,
writing messages whose text looks like the headers older formats kept in the content.

    python -m bench.killloop [--kills 100] [--seed 14] [--home DIR]

Each round forks a writer from a process that already imported the engine (so a kill lands in the write
path, not in Python's start-up): it runs the CLI's ``main`` for one ``append`` after another (every tenth
call a ``compact``, every fifth a ``history``), in one of two sessions (history.json limit 4 MiB, or 4 KiB
so that nearly every append compacts), and records each acknowledged append. The parent kills it after a
random delay, checks that history.json parses, and goes on until ``--kills`` writers were killed. Then it
opens the memory once and reports: kills, acknowledged messages, lost (acknowledged, not archived),
duplicated (archived or in history.json more than once), and whether each history.json equals its
archive after the cut.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

from engine import Memory
from engine.cli import main as cli

SESSIONS = {"kill-big": 4 * 1024 * 1024, "kill-small": 4096}
HEADERS = [
    "sendAt: 2026-08-20 02:30:00\n{tag}",
    "sendAt: 2026-08-20 02:30:00, sender: Alice\n{tag}",
    "sender: {tag}",
    "channelId: 42\n{tag}",
    "---\n當前時間: 2024-05-01 12:34:56\n工作目錄: /home/me\n---\n{tag}",
    "當前時間：2024-05-01 12:34\n傳送者: 小明\n{tag}",
    "ts:1714538096\n{tag}",
    "\ue200cite\ue202turn0search1\ue201 {tag}",
    "{tag}\n---",
]


def text_for(tag: str, n: int) -> str:
    return HEADERS[n % len(HEADERS)].format(tag=tag) + " " + "p" * (n * 37 % 400)


def writer(home: str, session: str, prefix: str, acks: str, rng: random.Random) -> None:
    """The child: CLI calls until killed; one ack line per acknowledged append."""
    quiet = io.StringIO()
    for n in range(100_000):
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            if n % 10 == 9:
                cli(["--home", home, "compact", "--session", session])
                continue
            if n % 5 == 4:
                cli(["--home", home, "history", "--session", session, "--json"])
                continue
            role = "user" if rng.random() < 0.6 else "assistant"
            args = ["--home", home, "append", "--session", session, "--role", role]
            code = cli([*args, f"--content={text_for(f'{prefix}-{n}', n)}"])
        if code != 0:
            os._exit(3)
        fd = os.open(acks, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.write(fd, f"{prefix}-{n} {n}\n".encode())
        os.close(fd)
        quiet.seek(0)
        quiet.truncate()


def run_round(home: str, session: str, prefix: str, acks: str, delay: float, seed: int) -> bool:
    """Fork a writer and kill it after ``delay`` seconds; True if it was killed (not finished)."""
    pid = os.fork()
    if pid == 0:
        try:
            writer(home, session, prefix, acks, random.Random(seed))
        finally:
            os._exit(0)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
        time.sleep(0.001)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return True


def check_file(home: Path, session: str) -> None:
    path = home / "sessions" / session / "history.json"
    if path.exists():
        assert isinstance(json.loads(path.read_bytes()), list), f"{path} is not a JSON array"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("MEMTRAY_EMBEDDER", "hash")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        with Memory.open(home, background=False) as mem:  # warm up this process (the children fork it)
            mem.update_settings(max_history_bytes=SESSIONS["kill-small"])
        acks = str(Path(tmp) / "acks")
        kills = rounds = 0
        started = time.monotonic()
        while kills < args.kills:
            session = rng.choice(sorted(SESSIONS))
            with Memory.open(home, background=False) as mem:
                if mem.settings.max_history_bytes != SESSIONS[session]:
                    mem.update_settings(max_history_bytes=SESSIONS[session])
            killed = run_round(
                str(home), session, f"r{rounds}", acks, rng.uniform(0.01, 0.6), rng.randrange(1 << 30)
            )
            kills += killed
            rounds += 1
            for name in SESSIONS:
                check_file(home, name)
        acked = Counter()
        if Path(acks).exists():
            for line in Path(acks).read_text().splitlines():
                tag, n = line.split()
                acked[text_for(tag, int(n))] += 1
        with Memory.open(home, background=False) as mem:
            archived: Counter[str] = Counter()
            in_files: Counter[str] = Counter()
            agree = True
            for session in SESSIONS:
                if not mem.exists(session):
                    continue
                rows = list(mem.iter_archive(session))
                archived.update(m.content for m in rows)
                history = mem.history(session)  # finishes an interrupted append or compaction, if any
                cut = mem.compaction_cut(session)
                agree &= [(m.id, m.content) for m in history] == [
                    (m.id, m.content) for m in rows if (m.id or 0) >= cut
                ]
                on_disk = json.loads(mem.paths.history_file(session).read_bytes())
                in_files.update(r["content"] for r in on_disk)
                agree &= [r["content"] for r in on_disk] == [m.content for m in history]
        lost = sum(1 for text in acked if archived[text] == 0)
        duplicated = sum(1 for n in archived.values() if n > 1) + sum(1 for n in in_files.values() if n > 1)
        unacked = sum(archived.values()) - len(acked)
        print(
            f"kill loop: {kills} SIGKILLs in {rounds} rounds ({time.monotonic() - started:.0f}s); "
            f"{len(acked)} acknowledged appends; lost {lost}; duplicated {duplicated}; "
            f"{unacked} unacknowledged (interrupted) appends kept; history.json equals the archive after "
            f"the cut: {'yes' if agree else 'NO'}"
        )
        if lost or duplicated or not agree:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
