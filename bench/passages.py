"""Long messages embedded whole (passages, :mod:`engine.semantic.passages`): what they find, what they cost.

    python -m bench.passages needles [--embedder e5]
    python -m bench.passages windows [--windows 504,256,128]
    python -m bench.passages cost [--messages 20000] [--sample-s 90]
    python -m bench.passages scale [--messages 200000] [--home bench/out/passages-200k] [--queries 60]

``needles``: the questions of :data:`bench.longreplies.NEEDLES`, each answered by a fact placed past the
first 2,500 characters of a long reply (4,000-15,000 characters) among other long replies and short
turns; rank of the answer (semantic and hybrid, hit@1/@5/@10, MRR) and whether the hit's passage holds
the fact, with passages and "before" (one vector per message: what the model reads of its start).

``windows``: the same replies (and 20 long replies without a needle) cut at other window sizes (overlap a
quarter of the window, at most 64 tokens) and "one vector" (what the model reads of a message's start):
each question's rank of its reply by its best passage's cosine, no floors (e5 directly, not ``Memory``).

``cost``: a realistic 20,000-message export (``bench.longreplies.conversation``: short questions,
assistant replies of 200-20,000 characters); its passages and e5 tokens, before (one text per message cut
at 2,000 characters and at the model's 512 tokens) and after; then the real background embedder
(``Memory`` with e5, its worker) on the export's newest messages for ``--sample-s`` seconds: messages,
passages and tokens per second (wall, and per CPU second of the process: steadier on a shared machine),
and the time until the whole export is covered at that rate (and in CPU hours).

``scale``: hybrid (and semantic, keyword) search p50/p95 over a home of 200,000 messages of which 5 % are
long replies embedded as passages. The vectors are the hash embedder's (e5 would take hours to embed
200,000 messages here), written straight into SQLite: each message's and passage's vector is the hash
vector of one of 4,000 real texts plus noise (hashing every passage in Python would take an hour); the
queries are hash-embedded words of the corpus. Built once under ``--home``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.corpus import Corpus
from bench.longreplies import NEEDLES, conversation, reply, with_needle
from engine import Memory, Message
from engine.embedders import Embedder
from engine.embedders.chooser import select
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession
from engine.semantic import passages, rows

NS = 1_000_000_000
T0 = 1_700_000_000 * NS


def _embedder(name: str) -> Embedder:
    embedder, choice = select(name)
    print(f"embedder: {choice.embedder_id} ({choice.reason})")
    return embedder


# -- needles ----------------------------------------------------------------------------------------


def needles(name: str, whole: bool) -> dict[str, list[int | None]]:
    """The rank (1-based, None past 10) of each needle's reply per mode, and whether its passage holds
    the fact (rank stored as negative when it does not)."""
    embedder = _embedder(name)
    family = embedder.id.split("-", 1)[0]
    kept = dict(passages.WINDOW_TOKENS)
    if not whole:
        passages.WINDOW_TOKENS[family] = 10**9  # one text per message (what the model reads of it), as before
    try:
        return _needles(embedder)
    finally:
        passages.WINDOW_TOKENS.clear()
        passages.WINDOW_TOKENS.update(kept)


def _needles(embedder: Embedder) -> dict[str, list[int | None]]:
    rng = random.Random(26)
    ranks: dict[str, list[int | None]] = {"semantic": [], "hybrid": [], "passage": []}
    with (
        tempfile.TemporaryDirectory() as folder,
        Memory.open(Path(folder) / "home", embedder=embedder) as mem,
    ):
        answers: list[tuple[int, int]] = []
        for n, needle in enumerate(NEEDLES):
            text = with_needle(rng, needle, rng.choice((4_000, 8_000, 15_000)))
            turns = [Message("user", "Can you help me with this?", T0 + n * 100 * NS)]
            turns.append(Message("assistant", text, T0 + (n * 100 + 1) * NS))
            for i, (role, body) in enumerate(conversation(rng, 6)):
                turns.append(Message(role, body, T0 + (n * 100 + 2 + i) * NS))
            stored = mem.append(f"chat-{n}", turns)
            answers.append((stored[1].id or 0, text.index(needle.fact)))
        started = time.perf_counter()
        assert mem.wait_idle(timeout=3600)
        print(f"embedded in {time.perf_counter() - started:.0f} s")
        for needle, (answer, at) in zip(NEEDLES, answers, strict=True):
            for mode in ("semantic", "hybrid"):
                hits = mem.search(needle.question, match=mode, limit=10)
                ids = [h.message.id for h in hits]
                rank = ids.index(answer) + 1 if answer in ids else None
                ranks[mode].append(rank)
                if mode == "semantic" and rank is not None:
                    span = hits[rank - 1].passage
                    ranks["passage"].append(1 if span is not None and span[0] <= at < span[1] else 0)
    return ranks


def _table(label: str, found: list[int | None]) -> str:
    n = len(found)
    at = [sum(1 for r in found if r is not None and r <= k) / n for k in (1, 5, 10)]
    mrr = sum(1 / r for r in found if r is not None) / n
    return f"{label:<28} {at[0]:.3f}  {at[1]:.3f}  {at[2]:.3f}  {mrr:.3f}   ranks {found}"


def run_windows(sizes: list[int]) -> None:
    embedder = _embedder("e5")
    count = passages.window_for(embedder).count
    rng = random.Random(26)
    texts = [with_needle(rng, n, rng.choice((4_000, 8_000, 15_000))) for n in NEEDLES]
    others = [t for _, t in conversation(random.Random(5), 40) if len(t) > 1_500]
    questions = np.stack([embedder.encode_query(n.question) for n in NEEDLES])
    for size in sizes:
        window = passages.Window(size, min(passages.OVERLAP, size // 4), count)
        owner, parts = [], []
        for i, text in enumerate(texts + others):
            for part in passages.split(text, "", "Can you help me with this?", window)[0]:
                owner.append(i)
                parts.append(part.text)
        scores = embedder.encode_documents(parts) @ questions.T
        ranks = []
        for n in range(len(NEEDLES)):
            best: dict[int, float] = {}
            for k in np.argsort(-scores[:, n]):
                best.setdefault(owner[k], float(scores[k, n]))
            ranks.append(sorted(best, key=lambda o: -best[o]).index(n) + 1)
        label = "one vector (before)" if size >= 10**6 else f"{size} tokens"
        print(
            _table(f"{label}, {len(parts)} texts", [r if r <= 10 else None for r in ranks])
            + f" (all: {ranks})"
        )


def run_needles(name: str) -> None:
    print(f"{len(NEEDLES)} questions answered past the first 2,500 characters of a long reply")
    results = {whole: needles(name, whole) for whole in (False, True)}
    print(f"{'':<28} hit@1  hit@5 hit@10  MRR")
    for whole, found in results.items():
        tag = "passages" if whole else "before (one vector)"
        for mode in ("semantic", "hybrid"):
            print(_table(f"{mode}, {tag}", found[mode]))
        if whole:
            held = found["passage"]
            print(f"the semantic hit's passage holds the fact: {sum(held)} of {len(held)} found")


# -- cost -------------------------------------------------------------------------------------------


def export(messages: int, seed: int = 20) -> list[ImportedSession]:
    rng = random.Random(seed)
    sessions: list[ImportedSession] = []
    made = 0
    while made < messages:
        turns = min(messages - made, rng.randint(4, 40) // 2 * 2)
        start = T0 + len(sessions) * 3_600 * NS
        convo = [Message(r, t, start + i * 60 * NS) for i, (r, t) in enumerate(conversation(rng, turns))]
        sessions.append(ImportedSession(f"chat-{len(sessions):05d}", convo))
        made += turns
    return sessions


def run_cost(messages: int, sample_s: float) -> None:
    embedder = _embedder("e5")
    window = passages.window_for(embedder)
    count = getattr(embedder, "count_tokens", passages.estimate)
    sessions = export(messages)
    texts = [m for s in sessions for m in s.messages]
    chars = [len(m.content) for m in texts]
    print(
        f"export: {len(sessions):,} conversations, {len(texts):,} messages, {sum(chars) / 1e6:.1f} M characters; "
        f"{sum(c > 2_000 for c in chars):,} longer than 2,000 characters (median length {statistics.median(chars):.0f}, "
        f"longest {max(chars):,})"
    )
    started = time.perf_counter()
    old_tokens = new_tokens = parts = 0
    for s in sessions:
        previous = None
        for m in s.messages:
            item = rows.pending(0, s.session, m, previous, window)
            old = rows.document_text(m, previous)
            old_tokens += min(512, count(old) + 2)
            new_tokens += sum(count(p.text) + 4 for p in item.parts)  # start, end and "passage: "
            parts += len(item.parts)
            previous = m
    cut = time.perf_counter() - started
    print(
        f"tokens the model reads: before {old_tokens / 1e6:.2f} M (one text per message), after "
        f"{new_tokens / 1e6:.2f} M in {parts:,} passages (x{new_tokens / old_tokens:.2f}); cutting took "
        f"{cut:.1f} s ({len(texts) / cut:,.0f} messages/s)"
    )
    # the real background embedder on the export's newest conversations, for sample_s seconds
    with (
        tempfile.TemporaryDirectory() as folder,
        Memory.open(Path(folder) / "home", embedder=embedder) as mem,
    ):
        mem.semantic.set_paused(True)
        mem.import_sessions(sessions)
        with mem._store.read() as conn:
            queued = rows.queued(conn)
        mem.semantic.set_paused(False)
        started, cpu = time.perf_counter(), _cpu_seconds()
        time.sleep(sample_s)
        mem.semantic.set_paused(True)
        assert mem.wait_idle(timeout=600)
        spent, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
        with mem._store.read() as conn:
            done = rows.embedded(conn, embedder.id, None)
            passage_rows = int(conn.execute("SELECT COUNT(*) FROM passages").scalar_one())
            ids = [int(r[0]) for r in conn.execute("SELECT message_id FROM vectors")]
            contents = dict(
                (int(r[0]), (str(r[1]), str(r[2] or ""), r[3], r[4]))
                for r in conn.execute(
                    "SELECT m.id, m.content, m.sender, "
                    "(SELECT p.content FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
                    "ORDER BY p.id DESC LIMIT 1), "
                    "(SELECT p.sender FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
                    "ORDER BY p.id DESC LIMIT 1) FROM messages m WHERE m.id IN (SELECT message_id FROM vectors)"
                )
            )
    tokens = 0
    for mid in ids:
        content, sender, before, before_sender = contents[mid]
        previous = Message("user", before, 0, before_sender or "") if before is not None else None
        item = rows.pending(mid, "", Message("assistant", content, 0, sender), previous, window)
        tokens += sum(count(p.text) + 4 for p in item.parts)
    rate = tokens / spent
    print(
        f"background embedder, {spent:.0f} s: {done:,} of {queued:,} queued messages covered "
        f"({passage_rows:,} passage rows), {done / spent:.1f} messages/s, {tokens / spent:,.0f} tokens/s; "
        f"{cpu:.0f} CPU s = {tokens / cpu:,.0f} tokens per CPU s; load average {_load()}"
    )
    print(
        f"time until the {len(texts):,}-message export is covered at that rate: {new_tokens / rate / 3600:.2f} h "
        f"(one text per message, before: {old_tokens / rate / 3600:.2f} h at the same tokens/s); "
        f"{new_tokens / (tokens / cpu) / 3600:.2f} CPU h (on 2 idle cores: {new_tokens / (tokens / cpu) / 7200:.2f} h)"
    )


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


# -- scale ------------------------------------------------------------------------------------------


def build_scale(home: Path, messages: int, long_share: float) -> None:
    embedder = HashEmbedder()
    with Memory.open(home, embedder=embedder) as mem:
        if mem.sessions():
            return
        mem.semantic.set_paused(True)
        corpus, rng = Corpus(seed=26), random.Random(26)
        started = time.perf_counter()
        per, batch = 100, []
        for s in range(messages // per):
            first = T0 + s * 3_600 * NS
            convo = []
            for i in range(per):
                long = i % 2 == 1 and rng.random() < long_share * 2
                text = (
                    reply(rng, min(20_000, int(2_000 * rng.lognormvariate(0.5, 0.6))))
                    if long
                    else corpus.message()
                )
                convo.append(Message("user" if i % 2 == 0 else "assistant", text, first + i * 60 * NS))
            batch.append(ImportedSession(f"chat-{s:05d}", convo))
            if len(batch) == 50:
                mem.import_sessions(batch)
                batch = []
                print(
                    f"  imported {(s + 1) * per:,} messages ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
        if batch:
            mem.import_sessions(batch)
        pool = [corpus.message() for _ in range(4_000)]
        base = embedder.encode_documents(pool)
        window = passages.window_for(embedder)
        with mem._store.write() as conn:
            got = conn.execute("SELECT id, session_id, content, sender FROM messages ORDER BY id").all()
            vectors, parts = [], []
            for mid, session, content, sender in got:
                item = rows.pending(
                    int(mid), str(session), Message("user", str(content), 0, str(sender or "")), None, window
                )
                made = base[rng.randrange(len(base))] + rng.gauss(0, 0.02) * np.random.default_rng(
                    int(mid)
                ).standard_normal(embedder.dim)
                made = (made / np.linalg.norm(made)).astype(np.float32)
                vectors.append(
                    (embedder.id, int(mid), str(session), embedder.dim, item.text_hash, made.tobytes())
                )
                for n, p in enumerate(item.passages):
                    other = base[rng.randrange(len(base))]
                    other = (other / np.linalg.norm(other)).astype(np.float32)
                    parts.append(
                        (
                            embedder.id,
                            int(mid),
                            str(session),
                            n,
                            p.start,
                            p.end,
                            embedder.dim,
                            other.tobytes(),
                        )
                    )
            conn.execute(
                "INSERT INTO vectors(embedder, message_id, session_id, dim, text_hash, vector) VALUES (?, ?, ?, ?, ?, ?)",
                vectors,
            )
            conn.execute(
                "INSERT INTO passages(embedder, message_id, session_id, passage, start_char, end_char, dim, vector) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                parts,
            )
            conn.execute("DELETE FROM embed_queue")
        print(
            f"built {len(got):,} messages ({len(vectors):,} vectors, {len(parts):,} passages) in "
            f"{time.perf_counter() - started:.0f} s"
        )


def run_scale(home: Path, messages: int, queries: int) -> None:
    build_scale(home, messages, 0.05)
    corpus = Corpus(seed=99)
    words = [" ".join(corpus.english().split()[:3]) for _ in range(queries)]
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        with mem._store.read() as conn:
            counted = [
                int(conn.execute(f"SELECT COUNT(*) FROM {t}").scalar_one())
                for t in ("messages", "vectors", "passages")
            ]
        print(f"home: {counted[0]:,} messages, {counted[1]:,} vectors, {counted[2]:,} passages")
        mem.search("warm up", match="hybrid")  # the cross-session indexes are read once
        for match in ("keyword", "semantic", "hybrid"):
            times = []
            for q in words:
                started = time.perf_counter()
                mem.search(q, match=match, limit=10)
                times.append(time.perf_counter() - started)
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(
                f"{match:<8} p50 {statistics.median(times) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  ({len(times)} queries)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("part", choices=("needles", "windows", "cost", "scale"))
    parser.add_argument("--windows", default="1000000000,504,256,128")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--messages", type=int, default=None)
    parser.add_argument("--sample-s", type=float, default=90.0)
    parser.add_argument("--home", type=Path, default=Path("bench/out/passages-200k"))
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    if args.part == "needles":
        run_needles(args.embedder)
    elif args.part == "windows":
        run_windows([int(w) for w in args.windows.split(",")])
    elif args.part == "cost":
        run_cost(args.messages or 20_000, args.sample_s)
    else:
        run_scale(args.home, args.messages or 200_000, args.queries)


if __name__ == "__main__":
    main()
