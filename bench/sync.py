"""Sync through a shared folder: a new device joining, the steady-state cost, the folder's size.

Builds device A with ``--messages`` messages (default 100,000: ``--per-session`` per session, ~150-byte
texts with a word of their own) by import, enables sync on a shared folder and measures:

- export: A's first ``sync now`` (every message into encrypted segments), messages/s;
- join: a fresh device B's first ``sync now`` (apply everything), and the time until a keyword search
  on B finds A's last message: the apply rate (target >= 20,000 messages/s);
- folder size: A's segments against the archive's message text and against the database file
  (target <= 1.3x before the encryption's ~48 bytes per file);
- steady state: ``--appends`` single-message appends on A with sync on (each also records its global id),
  then one ``sync now`` that sends them: the append's mean latency and the sync's cost per appended
  message (target <= 1 ms);
- round trip: one append on A, ``sync now`` on A, ``sync now`` on B, keyword-searchable on B (the
  sync engine's own delay excluded: both devices use the same folder here).

    python -m bench.sync [--messages 100000] [--per-session 100] [--appends 1000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import nacl.pwhash

from bench import homes
from engine.messages import Message
from engine.sync import crypto
from engine.sync import folder as layout


def size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--per-session", type=int, default=100)
    parser.add_argument("--appends", type=int, default=1000)
    args = parser.parse_args()
    # libsodium's interactive Argon2id limits: the key is derived twice here, and its cost is not sync's
    crypto.KDF_LIMITS = (nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE, nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE)
    with tempfile.TemporaryDirectory(prefix="memtray-bench-sync-") as tmp:
        base = Path(tmp)
        folder = base / "shared"
        folder.mkdir()
        a = homes.open_home(base / "a")
        filled = homes.timed_import(a, homes.marked(args.messages, args.per_session))
        print(
            f"A: {args.messages:,} messages imported in {filled.wall:.1f} s (CPU {filled.cpu:.2f} s: "
            f"{args.messages / filled.cpu:,.0f}/s; the import is what applying calls)"
        )
        a.sync.enable(folder, "bench passphrase", "a")
        started, cpu = time.perf_counter(), time.process_time()
        sent = a.sync.now()
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"export: {sent.messages_sent:,} messages in {sent.segments_written} segments, {took:.2f} s "
            f"({sent.messages_sent / took:,.0f} messages/s; CPU {cpu:.2f} s: {sent.messages_sent / cpu:,.0f}/s)"
        )
        segments = list(layout.segments(folder, a.sync.device).values())
        with a._store.read() as conn:
            text_bytes = int(
                conn.execute("SELECT SUM(length(CAST(content AS BLOB))) FROM messages").scalar_one()
            )
        folder_bytes = size(segments)
        db_bytes = size([a.paths.database, a.paths.database.with_name("history.db-wal")])
        print(
            f"folder: {folder_bytes / 1e6:.1f} MB of segments; the archive's text {text_bytes / 1e6:.1f} MB "
            f"({folder_bytes / text_bytes:.2f}x), its database {db_bytes / 1e6:.1f} MB ({folder_bytes / db_bytes:.2f}x)"
        )

        b = homes.open_home(base / "b")
        b.sync.enable(folder, "bench passphrase", "b")
        started, cpu = time.perf_counter(), time.process_time()
        got = b.sync.now()
        applied, cpu = time.perf_counter() - started, time.process_time() - cpu
        homes.searchable(b, homes.mark(args.messages - 1))
        searchable = time.perf_counter() - started
        print(
            f"join: {got.applied.messages:,} messages applied in {applied:.2f} s "
            f"({got.applied.messages / applied:,.0f} messages/s; CPU {cpu:.2f} s: {got.applied.messages / cpu:,.0f}/s); "
            f"keyword-searchable on B after {searchable:.2f} s"
        )

        latencies = []
        for i in range(args.appends):
            t = time.perf_counter()
            a.append("steady", [Message("user", f"steady append {i} wombat{i}x", time.time_ns())])
            latencies.append(time.perf_counter() - t)
        started = time.perf_counter()
        report = a.sync.now()
        per = (time.perf_counter() - started) / args.appends
        print(
            f"steady: append {sum(latencies) / len(latencies) * 1000:.2f} ms mean (global id included); "
            f"sync now sent {report.messages_sent} appends: {per * 1000:.3f} ms per append"
        )
        b.sync.now()
        a.append("steady", [Message("user", "round trip quokka", time.time_ns())])
        started = time.perf_counter()
        a.sync.now()
        mid = time.perf_counter()
        b.sync.now()
        found = bool(b.search("quokka", match="keyword"))
        end = time.perf_counter()
        print(
            f"round trip (one message): sync now on A {(mid - started) * 1000:.0f} ms, on B "
            f"{(end - mid) * 1000:.0f} ms, searchable on B: {found} ({(end - started) * 1000:.0f} ms in all, "
            "without the sync engine's delay)"
        )
        a.close()
        b.close()


if __name__ == "__main__":
    main()
