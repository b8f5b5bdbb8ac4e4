"""From the end of a big import until meaning search covers it: the default embedder in the background.

    python -m bench.coverage ../shared/eval/locomo-dev.json [--messages 50000] [--sessions 500]
                             [--home bench/out/coverage] [--every 30]

Real conversation text (the turns of a LoCoMo-format file, given on the command line and never copied
into the repository), repeated with a counter until there are ``--messages`` of them, is imported with
``Memory.import_sessions`` into ``--sessions`` sessions of a fresh home, in a memory opened as the app
opens it (the background embedder on, the default embedder: ``MEMTRAY_EMBEDDER`` is unset). From the
moment the import returns, the backlog is watched (the newest 1,000 messages every second): every
``--every`` seconds a line with the messages embedded, the rate over that span and a hybrid search's
wall time with its coverage line (a search never waits for the backlog). At the end: the time until the newest 1,000 messages and all of them were
covered, the mean rate, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import sqlite3
import time
from pathlib import Path

from bench.evalconv import load
from engine import Memory, Message
from engine.imported import ImportedSession

NS = 1_000_000_000
QUERY = "what did she say about the adoption agency"


def messages_from(path: Path, count: int) -> list[Message]:
    turns = [m for conversation in load(path) for _, m in conversation.turns]
    found: list[Message] = []
    start = 1_700_000_000 * NS
    for n in range(count):
        turn = turns[n % len(turns)]
        lap = n // len(turns)
        text = turn.content if lap == 0 else f"{turn.content} ({lap})"
        found.append(Message(turn.role, text, start + n * 30 * NS, turn.sender))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "data", type=Path, help="a LoCoMo-format JSON file (e.g. ../shared/eval/locomo-dev.json)"
    )
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--home", type=Path, default=Path("bench/out/coverage"))
    parser.add_argument("--every", type=float, default=30.0, help="seconds between progress lines")
    args = parser.parse_args()
    os.environ.pop("MEMTRAY_EMBEDDER", None)
    shutil.rmtree(args.home, ignore_errors=True)
    messages = messages_from(args.data, args.messages)
    per = -(-len(messages) // args.sessions)
    imported = [
        ImportedSession(f"cov-{i:04d}", messages[i * per : (i + 1) * per], title=f"coverage {i}")
        for i in range(args.sessions)
        if messages[i * per : (i + 1) * per]
    ]
    started = time.perf_counter()
    with Memory.open(args.home) as mem:
        report = mem.import_sessions(imported)
        done_at = time.perf_counter()
        print(
            f"imported {report.messages_added:,} messages into {report.sessions:,} sessions "
            f"in {done_at - started:.1f} s ({report.messages_added / (done_at - started):,.0f}/s)"
        )
        print(f"{'after s':>8} {'embedded':>10} {'of':>8} {'rate/s':>7} {'search ms':>9}  coverage line")
        newest_at: float | None = None
        database = args.home / ".store" / "history.db"
        last_time, last_embedded, next_line = done_at, 0, done_at + args.every
        while True:
            time.sleep(1.0)  # the newest messages are looked at every second, a line every --every s
            now = time.perf_counter()
            if newest_at is None and _newest_covered(database, 1000):
                newest_at = now - done_at
            status = mem.embedding_status()
            finished = bool(status.total) and status.embedded >= status.total and status.queued == 0
            if now < next_line and not finished:
                continue
            t0 = time.perf_counter()
            result = mem.search_with_coverage(QUERY, match="hybrid", limit=10)
            search_ms = (time.perf_counter() - t0) * 1000
            rate = (status.embedded - last_embedded) / (now - last_time)
            line = result.coverage.describe() if result.coverage is not None else ""
            print(
                f"{now - done_at:8.0f} {status.embedded:10,} {status.total:8,} {rate:7.1f} {search_ms:9.0f}  {line}",
                flush=True,
            )
            last_time, last_embedded, next_line = now, status.embedded, now + args.every
            if finished:
                break
        total_s = time.perf_counter() - done_at
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"newest 1,000 covered after {newest_at or 0:.0f} s; all {report.messages_added:,} after {total_s:.0f} s"
    )
    print(f"mean rate {report.messages_added / total_s:.1f} messages/s; peak RSS {peak:.0f} MiB")


def _newest_covered(database: Path, newest: int) -> bool:
    """Whether the ``newest`` messages (by id) all have a vector, read from the database file itself."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as conn:
        (missing,) = conn.execute(
            "SELECT COUNT(*) FROM (SELECT id FROM messages ORDER BY id DESC LIMIT ?) AS m "
            "WHERE NOT EXISTS (SELECT 1 FROM vectors AS v WHERE v.message_id = m.id)",
            (newest,),
        ).fetchone()
    return int(missing) == 0


if __name__ == "__main__":
    main()
