"""The fault run: real ``memtray`` commands against a broken environment or damaged files, and what the
user sees. ``python -m bench.faults [--markdown]``.

Each fault is made on a fresh home with two sessions (one compacted), then each command runs in its own
process; the table says the fault, the command, its exit status and the first line of stderr (or of
stdout when stderr is empty; for ``repair``, its "rebuilt:" line). The read-only home is a read-only bind mount and the full disk a 8 MiB
tmpfs when run as root (root ignores file modes); as another user the home loses its write bits and the
full disk is skipped. With the database locked by another process, SQLite's busy timeout is lowered from
30 s to 3 s for the run, so the table comes back in seconds; nothing else differs from the installed CLI.
Summaries go to a closed port (127.0.0.1:9), so ``summarize`` shows what a working home does offline.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = (
    "import sys; from engine.storage import store; store.BUSY_TIMEOUT_MS = 3000; "
    "from engine.cli import main; sys.exit(main(sys.argv[1:]))"
)
Row = tuple[str, str, int, str]


def run(home: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", CLI, "--home", str(home), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "MEMTRAY_EMBEDDER": "hash", "GEMINI_API_KEY": "k3y_for_the_fault_run"},
    )
    err = done.stderr.strip().splitlines()
    out = done.stdout.strip().splitlines()
    rebuilt = [line for line in out if line.startswith("rebuilt:")]  # repair's figures, not its first line
    seen = err[0] if err else (f"(stdout) {(rebuilt or out)[0]}" if out else "(nothing)")
    return done.returncode, seen


def prepare(home: Path, jsonl: Path) -> None:
    """Two sessions, one compacted into the archive; summaries pointed at a closed port."""
    for args in (
        ("config", "max_history_bytes", "4096"),
        ("config", "gemini_base_url", "http://127.0.0.1:9"),
        ("config", "decision_model", ""),
        ("import", "jsonl", str(jsonl), "--session", "cli-long"),
        ("append", "--session", "cli-short", "--role", "user", "--content", "short hello"),
    ):
        code, seen = run(home, *args)
        if code != 0:
            raise SystemExit(f"preparing the home failed: {args}: {seen}")


def commands(jsonl: Path) -> list[tuple[str, ...]]:
    return [
        ("append", "--session", "cli-short", "--role", "user", "--content", "one more"),
        ("history", "--session", "cli-long"),
        ("search", "hello", "--match", "keyword"),
        ("sessions",),
        ("import", "jsonl", str(jsonl), "--session", "cli-new"),
        ("summarize", "--session", "cli-short"),
    ]


# -- the faults ---------------------------------------------------------------------------------


@contextlib.contextmanager
def read_only(home: Path) -> Iterator[str]:
    if os.geteuid() == 0:
        subprocess.run(["mount", "--bind", str(home), str(home)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(home)], check=True)
            yield "read-only bind mount"
        finally:
            subprocess.run(["umount", "-l", str(home)], check=False)
        return
    subprocess.run(["chmod", "-R", "a-w", str(home)], check=True)
    try:
        yield "write bits removed"
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(home)], check=False)


@contextlib.contextmanager
def full_disk(home: Path, prepare_home: Callable[[Path], None]) -> Iterator[Path]:
    """A fresh home on an 8 MiB tmpfs, prepared, then the disk filled to its last byte."""
    disk = home.parent / "disk"
    disk.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(disk)], check=True)
    try:
        inner = disk / "home"
        prepare_home(inner)
        with open(disk / "filler", "wb", buffering=0) as handle:
            for size in (1 << 16, 512, 1):
                with contextlib.suppress(OSError):
                    while handle.write(b"\0" * size):
                        pass
        yield inner
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@contextlib.contextmanager
def locked(home: Path) -> Iterator[str]:
    """Another process holds a write transaction on the database for the block."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
            "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(600)",
            str(home / ".store" / "history.db"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        holder.stdout.readline()
        yield "BEGIN IMMEDIATE held by another process"
    finally:
        holder.kill()
        holder.wait()


def damage_history(home: Path) -> None:
    path = home / "sessions" / "cli-long" / "history.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_summary(home: Path) -> None:
    (home / "sessions" / "cli-short" / "summary.json").write_text('{"key_decisions": ["Do: be br')


def missing_store(home: Path) -> None:
    shutil.rmtree(home / ".store")


def empty_database(home: Path) -> None:
    (home / ".store" / "history.db").write_bytes(b"")
    for side in ("-wal", "-shm"):
        (home / ".store" / f"history.db{side}").unlink(missing_ok=True)


def corrupt_pages(home: Path) -> None:
    db = home / ".store" / "history.db"
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    rng = random.Random(14)
    for number in rng.sample(range(2, len(data) // page), min(10, len(data) // page - 2)):
        start = number * page + rng.randrange(page // 2, page - 32)
        data[start : start + 32] = rng.randbytes(32)
    db.write_bytes(bytes(data))


FILE_FAULTS: list[tuple[str, Callable[[Path], None]]] = [
    ("damaged history.json (truncated)", damage_history),
    ("damaged summary.json (truncated)", damage_summary),
    ("missing .store", missing_store),
    ("zero-length history.db", empty_database),
    ("corrupted pages (10 x 32 bytes)", corrupt_pages),
]


def fault_run(work: Path) -> list[Row]:
    jsonl = work / "chat.jsonl"
    jsonl.write_text(
        "".join(
            f'{{"role":"{r}","content":"{r} {n} hello {"y" * 400}"}}\n'
            for n in range(12)
            for r in ("user", "assistant")
        )
    )
    rows: list[Row] = []
    counter = iter(range(1000))

    def fresh() -> Path:
        home = work / f"h{next(counter)}" / "home"
        home.parent.mkdir()
        prepare(home, jsonl)
        return home

    home = fresh()
    with read_only(home) as how:
        rows += [(f"read-only home ({how})", " ".join(c[:2]), *run(home, *c)) for c in commands(jsonl)]
    if os.geteuid() == 0:
        with full_disk(work / f"h{next(counter)}" / "home", lambda h: prepare(h, jsonl)) as home:
            rows += [("full disk (8 MiB tmpfs)", " ".join(c[:2]), *run(home, *c)) for c in commands(jsonl)]
    else:
        rows.append(("full disk", "-", 0, "skipped: mounting a small tmpfs needs root"))
    home = fresh()
    with locked(home) as how:
        started = time.perf_counter()
        for command in commands(jsonl)[:4]:
            rows.append((f"locked database ({how})", " ".join(command[:2]), *run(home, *command)))
        rows[-1] = (*rows[-1][:3], f"{rows[-1][3]} [{time.perf_counter() - started:.0f} s for 4 commands]")
    for name, damage in FILE_FAULTS:
        home = fresh()
        damage(home)
        for command in [*commands(jsonl), ("repair",)]:
            rows.append((name, " ".join(command[:2]), *run(home, *command)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtray-faults-") as tmp:
        rows = fault_run(Path(tmp))
    if args.markdown:
        print("| fault | command | exit | what the user saw (first line of stderr) |")
        print("|---|---|---|---|")
        for fault, command, code, seen in rows:
            print(f"| {fault} | `{command}` | {code} | {seen[:140].replace('|', '/')} |")
        return
    width = max(len(r[0]) for r in rows)
    for fault, command, code, seen in rows:
        print(f"{fault:<{width}}  {command:<16} {code:>3}  {seen[:150]}")


if __name__ == "__main__":
    main()
