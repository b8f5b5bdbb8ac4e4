"""A calibrated "no matches": how the meaning-search floors of ``engine.semantic.floors`` were chosen.

    python -m bench.nomatch [--embedders hash,e5] [--eval-dir ../shared/eval]

A cosine alone cannot say "nothing here": e5 rates every pair of texts 0.7-0.9, so a nonsense string's
nearest message scores as high as a paraphrase's answer. What separates them is how far a message stands
above the query's similarity to the memory as a whole: the *lift*, the cosine minus the query's cosine
with the centroid of every vector of the embedder (the mean cosine to the memory, up to the centroid's
length). A nonsense string is about as near to everything; a question is much nearer to its answer.

For each embedder, both dev sets are imported into one memory each (``bench.evalconv``), and for each
candidate (absolute floor, lift floor) it prints:

- recall: the share of the set's own questions whose answer (an evidence message) is among the 10
  nearest messages of its conversation and passes the floors (the paraphrases);
- nonsense: the share of nonsense strings that still get any hit (over the whole memory);
- off-topic: the share of off-topic questions (:data:`OFF_TOPIC`, and the other set's questions) that
  still get any hit.

Embeddings are cached in ``bench/out`` as in ``bench.retrieval``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from bench.evalconv import Conversation, import_into, load
from bench.retrieval import CachedEmbedder
from engine import Memory
from engine.embedders.chooser import select

SETS = ("locomo-dev", "zh-dev")
NONSENSE = [
    "zzqqxxnotthere",
    "qwpeoritu asldkfj",
    "xkcd7 vvbn mmnq",
    "asdfgh jkl",
    "lorem ipsum dolor sit amet",
    "blarf zindle quopp",
    "ppppp",
    "zzz yyy xxx",
    "ggggg hhhhh",
    "vqx zrw pmt",
]
OFF_TOPIC = [
    "quantum chromodynamics lattice gauge theory",
    "我們討論過火星殖民的預算嗎？",
    "kubernetes ramen",
    "quarterly tax filing deadline for freelancers",
    "how do I reset my router password",
    "Python asyncio event loop error",
    "太空站的軌道高度是多少",
    "股票期權的稅務問題",
    "the capital of Mongolia",
    "GPU driver crash on Linux",
]


def centroid(mem: Memory, embedder_id: str) -> np.ndarray:
    with mem._store.read() as conn:
        got = conn.execute("SELECT vector FROM vectors WHERE embedder = ?", (embedder_id,)).all()
    matrix = np.frombuffer(b"".join(bytes(r[0]) for r in got), dtype=np.float32).reshape(len(got), -1)
    return matrix.mean(axis=0)


def measure(embedder: CachedEmbedder, name: str, sets: dict[str, list[Conversation]], only: str) -> None:
    for set_name, conversations in sets.items():
        if set_name != only:
            continue
        other = next(n for n in sets if n != set_name)
        with tempfile.TemporaryDirectory() as home, Memory.open(home, embedder=embedder) as mem:
            ids = {c.sample_id: import_into(mem, c) for c in conversations}
            mem.wait_idle()
            mu = centroid(mem, embedder.id)

            def lifted(
                text: str, session: str | None, mu: np.ndarray = mu
            ) -> list[tuple[bool, float, float]]:
                pairs = mem.semantic.search_vectors(text, session=session, scope="all", k=10)
                base = float(np.dot(embedder.encode_query(text), mu))
                return [(False, s, s - base) for _, s in pairs]

            on: list[list[tuple[bool, float, float]]] = []
            for conv in conversations:
                for q in conv.questions:
                    wanted = {ids[conv.sample_id][d] for d in q.evidence if d in ids[conv.sample_id]}
                    pairs = mem.semantic.search_vectors(q.text, session=conv.sample_id, scope="all", k=10)
                    base = float(np.dot(embedder.encode_query(q.text), mu))
                    on.append([(i in wanted, s, s - base) for i, s in pairs])
            nonsense = [lifted(t, None) for t in NONSENSE]
            off = [lifted(t, None) for t in OFF_TOPIC]
            others = [lifted(q.text, None) for c in sets[other] for q in c.questions][:100]
        answered = [p for p in on if any(w for w, _, _ in p)]
        print(f"\n== {set_name}, {name} ({embedder.id}): {len(answered)} of {len(on)} questions have their")
        print("   answer in the 10 nearest; recall is of those. Any hit kept: share of queries.")
        print(" floor   lift   recall  nonsense  off-topic  other-set")
        for floor in sorted({0.0, *ABSOLUTE.get(name, [])}):
            for lift in LIFTS.get(name, [0.0]):

                def keep(s: float, gain: float, floor: float = floor, lift: float = lift) -> bool:
                    return s >= floor and gain >= lift

                recall = np.mean([any(w and keep(s, g) for w, s, g in p) for p in answered])
                rates = [
                    np.mean([any(keep(s, g) for _, s, g in p) for p in group])
                    for group in (nonsense, off, others)
                ]
                print(
                    f"{floor:6.2f} {lift:6.3f}  {recall:6.3f}  {rates[0]:8.2f}  {rates[1]:9.2f}  {rates[2]:9.2f}"
                )


ABSOLUTE = {"e5": [0.75, 0.78, 0.80], "hash": [0.10], "use": [0.25]}
LIFTS = {
    "e5": [0.0, 0.02, 0.03, 0.035, 0.04, 0.045, 0.05, 0.055, 0.06, 0.07, 0.08],
    "hash": [0.0, 0.05, 0.10, 0.15, 0.20],
    "use": [0.0, 0.05, 0.10, 0.15, 0.20],
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--embedders", default="hash,e5")
    parser.add_argument("--eval-dir", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--cache", type=Path, default=Path("bench/out"), help="embedding cache folder")
    parser.add_argument("--sets", default=",".join(SETS), help="the sets to measure (the other is off-topic)")
    args = parser.parse_args()
    sets = {name: load(args.eval_dir / f"{name}.json") for name in SETS}
    for name in args.embedders.split(","):
        embedder = CachedEmbedder(select(name)[0], args.cache)
        for measured in args.sets.split(","):
            measure(embedder, name, sets, only=measured)
            embedder.save()  # after each set: a long run keeps what it embedded


if __name__ == "__main__":
    main()
