"""Concurrency with real processes: two CLI writers and the in-process engine (threads) on one home.

The CLI writers run ``memtray append`` and ``memtray import jsonl`` over and over while three threads of
one :class:`Memory` append to the same session, with history.json compacting all the time. Afterwards
no message is lost or doubled, the file and the archive agree, each writer's messages stay in its order,
and no writer ever saw "database is locked" (or any other error).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from sqlalchemy import text

from engine import Memory, Message

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from engine.cli import main; sys.exit(main(sys.argv[1:]))"
SESSION = "shared"
CLI_APPENDS = 6
IMPORT_LINES = 300


def cli_writer(home: Path, name: str, folder: Path, errors: list[str]) -> None:
    """One CLI writer: appends, then an import, then appends again; every run must succeed silently."""
    jsonl = folder / f"{name}.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps(
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"{name}-imp-{i} " + "i" * 200}
            )
            + "\n"
            for i in range(IMPORT_LINES)
        )
    )
    runs = [
        ["append", "--session", SESSION, "--role", "user", "--content", f"{name}-cli-{n} " + "c" * 300]
        for n in range(CLI_APPENDS)
    ]
    runs.insert(CLI_APPENDS // 2, ["import", "jsonl", str(jsonl), "--session", SESSION])
    for args in runs:
        done = subprocess.run(
            [sys.executable, "-c", CLI, "--home", str(home), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0 or ("locked" in done.stderr or "busy" in done.stderr):
            errors.append(f"{name} {args[0]}: exit {done.returncode}: {done.stderr.strip()}")


def test_two_cli_writers_and_engine_threads_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=16_384)
    errors: list[str] = []
    clis = [
        threading.Thread(target=cli_writer, args=(home, name, tmp_path, errors)) for name in ("cliA", "cliB")
    ]
    acked: Counter[str] = Counter()
    guard = threading.Lock()
    stop = threading.Event()

    with Memory.open(home) as mem:

        def engine_writer(name: str) -> None:
            n = 0
            while not stop.is_set() or n < 20:
                pair = [
                    Message("user", f"{name}-{n}-q " + "q" * 200, 0),
                    Message("assistant", f"{name}-{n}-a", 0),
                ]
                try:
                    mem.append(SESSION, pair)
                except Exception as exc:  # StoreLocked would land here
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")
                    return
                with guard:
                    acked.update(m.content for m in pair)
                n += 1

        threads = [threading.Thread(target=engine_writer, args=(f"thr{k}",)) for k in range(3)]
        for t in clis + threads:
            t.start()
        for t in clis:
            t.join()
        stop.set()
        for t in threads:
            t.join()
        assert errors == []

        history = [m.content for m in mem.history(SESSION)]
        cut = mem.compaction_cut(SESSION)
        with mem.store.read() as conn:
            rows = conn.execute(
                text("SELECT id, content FROM messages WHERE session_id = :s ORDER BY id"), {"s": SESSION}
            ).all()
    contents = [r[1] for r in rows]
    counts = Counter(contents)
    assert [c for c, k in counts.items() if k > 1] == []
    for content in acked:
        assert counts[content] == 1
    for name in ("cliA", "cliB"):
        assert sum(1 for c in contents if c.startswith(f"{name}-cli-")) == CLI_APPENDS
        assert sum(1 for c in contents if c.startswith(f"{name}-imp-")) == IMPORT_LINES
    for prefix in ("cliA-cli-", "cliB-cli-", "thr0-", "thr1-", "thr2-"):
        numbers = [
            int(c[len(prefix) :].split("-")[0].split(" ")[0]) for c in contents if c.startswith(prefix)
        ]
        assert numbers == sorted(numbers)  # each writer's messages stay in its order
    assert history == [r[1] for r in rows if r[0] >= cut]  # history.json is the archive after the cut
    expected = len(acked) + 2 * (CLI_APPENDS + IMPORT_LINES)
    assert len(contents) == expected
    print(f"\nconcurrency: {len(contents)} messages from 2 CLI writers and 3 threads, none lost or doubled")
