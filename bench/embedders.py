"""Embedding throughput (sentences/s) and peak RSS of each local embedder, each in a fresh process.

    python -m bench.embedders [--embedders e5,use,hash] [--n 1000]

Sentences: short mixed English / Traditional Chinese chat lines (generated), embedded as documents in
batches of 16 (the worker's batch size); plus the latency of one query.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

WORDS_EN = [
    "we",
    "talked",
    "about",
    "the",
    "trip",
    "to",
    "the",
    "mountains",
    "and",
    "my",
    "sister",
    "adopted",
    "a",
    "puppy",
    "last",
    "week",
    "again",
]
WORDS_ZH = list("我們昨天聊了去山上旅行的事情還有妹妹上週領養了一隻小狗")


def sentences(n: int) -> list[str]:
    out = []
    for i in range(n):
        if i % 3 == 2:
            out.append("".join(WORDS_ZH[(i + j) % len(WORDS_ZH)] for j in range(12 + i % 9)))
        else:
            out.append(" ".join(WORDS_EN[(i * 7 + j) % len(WORDS_EN)] for j in range(8 + i % 13)) + f" {i}")
    return out


def child(name: str, n: int) -> None:
    from engine.embedders.chooser import select

    t = time.perf_counter()
    embedder, _ = select(name)
    load_s = time.perf_counter() - t
    texts = sentences(n)
    t = time.perf_counter()
    for start in range(0, n, 16):
        embedder.encode_documents(texts[start : start + 16])
    rate = n / (time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(20):
        embedder.encode_query("what did my sister adopt?")
    query_ms = (time.perf_counter() - t) / 20 * 1000
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "name": name,
                "id": embedder.id,
                "load_s": load_s,
                "rate": rate,
                "query_ms": query_ms,
                "rss_mb": rss_mb,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedders", default="e5,use,hash")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n)
        return
    print("embedder  id              load s  sentences/s  query ms  peak RSS MB")
    for name in args.embedders.split(","):
        out = (
            subprocess.run(
                [sys.executable, "-m", "bench.embedders", "--child", name, "--n", str(args.n)],
                capture_output=True,
                text=True,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        r = json.loads(out)
        print(
            f"{r['name']:8s}  {r['id']:14s} {r['load_s']:7.2f} {r['rate']:12.0f} {r['query_ms']:9.1f} {r['rss_mb']:12.0f}"
        )


if __name__ == "__main__":
    main()
