"""Hybrid search with other keyword rankings: recompute the context ranking under a variant and replay the fusion.

    python -m bench.retrieval PATH --embedders e5 --dump out/rank.json       # writes out/rank-e5.json
    python -m bench.rank_variants PATH out/rank-e5.json [--variants base,irregular,...]

The set at PATH is imported again into a fresh memory with the same embedder (``bench.retrieval``'s cache
makes that cheap), so the message ids are those of the dump; for each question the context and plain keyword
rankings are computed again with the query (or BM25) changed as the variant says, put in place of the
dump's, and the engine's fusion replayed (:func:`bench.fusion_tune.fused`). Prints hybrid and context-ranking
hit@1/5/10/MRR per variant. Variants:

``base``         the engine's query (reproduces the dump's figures);
``irregular``    the base forms of irregular English verbs and plurals added as terms ("went" -> "go");
``nonames``      the session's sender names left out of the terms;
``nodate``       the words of a named date left out of the terms;
``prf``          pseudo-relevance feedback: the N rarest words of the fused first K messages added to the
                 query; the result replaces the plain list (``PRF_K``, ``PRF_N``, ``PRF_LIST=context``);

(A ``bm25`` variant once varied ``k1``/``b`` on the context ranking's bounded path; that path now scores with
FTS5's ``bm25()`` as the exact one does, so they are fixed there too: ``bench/README.md``.)
"""

from __future__ import annotations

import argparse
import calendar
import json
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import fusion_tune
from bench.retrieval import CachedEmbedder, Case, Scores, import_set
from engine import Memory
from engine.embedders.chooser import select
from engine.search import conductor, terms
from engine.search.query import Query, parse
from engine.search.terms import Term

IRREGULAR = {
    "went": "go", "gone": "go", "bought": "buy", "made": "make", "took": "take", "taken": "take",
    "saw": "see", "seen": "see", "ran": "run", "met": "meet", "got": "get", "gave": "give",
    "given": "give", "felt": "feel", "found": "find", "began": "begin", "begun": "begin", "won": "win",
    "wrote": "write", "written": "write", "told": "tell", "thought": "think", "brought": "bring",
    "taught": "teach", "caught": "catch", "left": "leave", "built": "build", "sang": "sing",
    "sung": "sing", "ate": "eat", "eaten": "eat", "drew": "draw", "drawn": "draw", "flew": "fly",
    "kept": "keep", "lost": "lose", "spent": "spend", "sent": "send", "heard": "hear", "held": "hold",
    "paid": "pay", "said": "say", "came": "come", "knew": "know", "known": "know", "chose": "choose",
    "chosen": "choose", "children": "child", "kids": "kid", "people": "person", "women": "woman",
    "men": "man",
}  # fmt: skip
MONTHS = {name.lower() for name in calendar.month_name if name}

Variant = Callable[[Query, Case], Query]


class Bench:
    """The memory the set was imported into again, with what the variants read of it."""

    def __init__(self, path: Path, embedder_name: str) -> None:
        embedder = CachedEmbedder(select(embedder_name)[0], Path("bench/out"))
        self.mem = Memory.open(tempfile.mkdtemp(), embedder=embedder, background=False)
        _, self.cases = import_set(self.mem, path)
        self.senders: dict[str, set[str]] = {}
        self.texts: dict[int, tuple[str, str]] = {}
        with self.mem._store.read() as conn:
            for message_id, session, sender, content in conn.execute(
                "SELECT id, session_id, sender, content FROM messages"
            ):
                self.senders.setdefault(session, set()).add((sender or "").lower())
                self.texts[int(message_id)] = (session, content)
        self.df: Counter[tuple[str, str]] = Counter()
        self.size: Counter[str] = Counter()
        for session, content in self.texts.values():
            self.size[session] += 1
            for word in {t.lower() for t in terms._TOKEN.findall(content)}:
                self.df[(session, word)] += 1

    def rankings(self, query: Query, case: Case) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        return self.mem._search.keyword_ranking(
            query, session=case.session, scope="all", depth=conductor.RANK_DEPTH
        )

    def names(self, case: Case) -> set[str]:
        if case.session is None:
            return {n for names in self.senders.values() for n in names}
        return self.senders.get(case.session, set())

    def expansion(self, query: Query, first: list[int], k: int, n: int) -> list[Term]:
        """The ``n`` words of the first ``k`` messages rarest in their sessions (not stop words, not the query's)."""
        asked = {t.text for t in query.terms}
        weights: Counter[str] = Counter()
        for message_id in first[:k]:
            session, content = self.texts[message_id]
            for word in {t.lower() for t in terms._TOKEN.findall(content)}:
                if word in terms.STOP_WORDS or word in asked or len(word) < 4 or word.isdigit():
                    continue
                weights[word] += math.log(self.size[session] / self.df[(session, word)])
        return [Term(w, "word") for w, _ in weights.most_common(n)]


def _with_terms(query: Query, kept: tuple[Term, ...]) -> Query:
    return replace(query, terms=kept or query.terms)


def score(bench: Bench, dump: dict[str, Any], label: str, variant: Variant | None) -> None:
    embedder_id, hybrid, context = dump["embedder"], [], []
    k, n = int(os.environ.get("PRF_K", "5")), int(os.environ.get("PRF_N", "5"))
    for case, dumped in zip(bench.cases, dump["cases"], strict=True):
        wanted = set(case.wanted)
        query = parse(case.text)
        if variant is None:  # prf: the first fusion's best messages extend the query
            extended = query
            if not query.has_cjk:
                first = fusion_tune.fused(dumped, embedder_id)
                extended = replace(query, terms=query.terms + tuple(bench.expansion(query, first, k, n)))
            ranked, _ = bench.rankings(extended, case)
            listed = "context" if os.environ.get("PRF_LIST") == "context" else "plain"
            changed = dict(dumped, **{listed: ranked})
        else:
            ranked, plain = bench.rankings(variant(query, case), case)
            changed = dict(dumped, context=ranked, plain=plain)
        ids = fusion_tune.fused(changed, embedder_id)
        hybrid.append(next((r for r, i in enumerate(ids[:10], 1) if i in wanted), None))
        top = [i for i, _ in changed["context"]][:10]
        context.append(next((r for r, i in enumerate(top, 1) if i in wanted), None))
    print(f"{label:22s} hybrid {fusion_tune.text(Scores.summary(hybrid))} | context {fusion_tune.text(Scores.summary(context))}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path)
    parser.add_argument("dump", type=Path)
    parser.add_argument("--variants", default="base,irregular,nonames,nodate,prf")
    args = parser.parse_args()
    dump = json.loads(args.dump.read_text(encoding="utf-8"))
    bench = Bench(args.path, "hash" if dump["embedder"].startswith("hash") else "e5")
    variants: dict[str, Variant] = {
        "base": lambda q, c: q,
        "irregular": lambda q, c: replace(
            q, terms=q.terms + tuple(Term(IRREGULAR[t.text], "word") for t in q.terms if t.text in IRREGULAR)
        ),
        "nonames": lambda q, c: _with_terms(q, tuple(t for t in q.terms if t.text not in bench.names(c))),
        "nodate": lambda q, c: q if not q.dates else _with_terms(
            q, tuple(t for t in q.terms if not (t.text.isdigit() or t.text in MONTHS
                                                or re.fullmatch(r"\d+(st|nd|rd|th)", t.text)))
        ),
    }  # fmt: skip
    for name in args.variants.split(","):
        if name == "prf":
            score(bench, dump, "prf", None)
        else:
            score(bench, dump, name, variants[name])
    bench.mem.close()


if __name__ == "__main__":
    main()
