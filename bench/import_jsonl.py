"""JSONL import throughput into one session (issue: >= 8,000 messages/s, embeddings excluded).

    python -m bench.import_jsonl [--messages 50000]

Writes a JSONL file of synthetic English and zh-TW messages, then times ``memtray import jsonl`` through
the engine (read + validate + archive with both FTS tables + history.json, compaction included) into a
fresh home with no semantic tier loaded.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.corpus import Corpus
from engine import Memory
from engine.importers import jsonl


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=50_000)
    args = parser.parse_args()
    corpus = Corpus(seed=9)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "chat.jsonl"
        start = 1_700_000_000 * 10**9
        with source.open("w", encoding="utf-8") as out:
            for i in range(args.messages):
                record = {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": corpus.message(),
                    "sendAt": start + i * 10**9,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        with Memory.open(Path(tmp) / "home", background=False) as mem:  # embeddings excluded: queued only
            t0 = time.perf_counter()
            result = jsonl.read(source, "cli-import")
            t1 = time.perf_counter()
            report = mem.import_sessions(result.sessions)
            t2 = time.perf_counter()
        size = source.stat().st_size / 1e6
        print(f"{args.messages:,} messages ({size:.1f} MB JSONL) into one session")
        print(f"read + validate: {t1 - t0:6.2f} s  {args.messages / (t1 - t0):9,.0f} messages/s")
        print(
            f"store:           {t2 - t1:6.2f} s  {report.messages_added / (t2 - t1):9,.0f} messages/s "
            "(archive + 2 FTS tables + history.json + compaction)"
        )
        print(f"total:           {t2 - t0:6.2f} s  {args.messages / (t2 - t0):9,.0f} messages/s")


if __name__ == "__main__":
    main()
