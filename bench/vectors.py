"""Archive index: Annoy vs exact numpy search, latency p50/p95 and recall@10, and rebuild time.

    python -m bench.vectors [--sizes 10000,100000] [--dim 384] [--trees 10,20] [--queries 200]

Data: synthetic clustered unit vectors (2,000 centres + noise; uniform random data is the worst case for
any ANN), the e5 dimension by default. Ground truth is exact search. Uses the engine's own code paths
(``engine.semantic.annoyindex.build/load`` and ``engine.semantic.exact.top_k``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.semantic import annoyindex, exact
from engine.semantic.rows import Stats


def clustered(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    centres = rng.normal(size=(2000, dim)).astype(np.float32)
    data = centres[rng.integers(0, 2000, n)] + 0.5 * rng.normal(size=(n, dim)).astype(np.float32)
    return data / np.linalg.norm(data, axis=1, keepdims=True)


def stdlib_sentences(limit: int) -> list[str]:
    """Distinct comment and docstring lines of the Python standard library (real English text)."""
    import sysconfig

    seen: dict[str, None] = {}
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for line in lines:
            text = line.strip().lstrip("#").strip().strip('"').strip()
            if len(text) >= 25 and " " in text and not text.startswith(("def ", "class ", "import ")):
                seen.setdefault(text, None)
        if len(seen) >= limit:
            break
    return list(seen)[:limit]


def real_vectors(n: int, cache: Path) -> np.ndarray:
    """``n`` USE embeddings of standard-library sentences (cached in ``cache``)."""
    path = cache / f"stdlib-use-{n}.npy"
    if path.exists():
        return np.load(path)
    from engine.embedders.use import UseEmbedder

    texts = stdlib_sentences(n)
    embedder = UseEmbedder()
    data = np.concatenate([embedder.encode_documents(texts[i : i + 256]) for i in range(0, len(texts), 256)])
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, data)
    return data


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--trees", default="10,20")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--data",
        choices=("clustered", "stdlib"),
        default="clustered",
        help="stdlib: real USE embeddings (512-d) of standard-library sentences, cached in bench/out",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    for n in (int(s) for s in args.sizes.split(",")):
        if args.data == "stdlib":
            data = real_vectors(n + args.queries, Path("bench/out"))
            data = data[rng.permutation(len(data))]
        else:
            data = clustered(n + args.queries, args.dim, rng)
        matrix, queries = data[:n], data[n:]
        ids = np.arange(1, n + 1, dtype=np.int64)
        truth, exact_ms = [], []
        for q in queries:
            t = time.perf_counter()
            order, _ = exact.top_k(matrix, q, 10)
            exact_ms.append((time.perf_counter() - t) * 1000)
            truth.append(set(ids[order].tolist()))
        print(f"\n== {n} vectors x {data.shape[1]} ({args.data})")
        print(
            f"exact numpy        p50 {statistics.median(exact_ms):7.2f} ms  p95 {pct(exact_ms, 0.95):7.2f} ms  recall 1.000"
        )
        for trees in (int(t) for t in args.trees.split(",")):
            with tempfile.TemporaryDirectory() as folder:
                ann, record = Path(folder) / "x.ann", Path(folder) / "x.json"
                t = time.perf_counter()
                annoyindex.build(
                    ann,
                    record,
                    ids,
                    matrix,
                    embedder="b",
                    cut=n + 1,
                    stats=Stats(n, n, int(ids.sum())),
                    n_trees=trees,
                )
                build_s = time.perf_counter() - t
                index = annoyindex.load(ann, record, ids)
                assert index is not None
                size_mb = ann.stat().st_size / 1e6
                print(
                    f"annoy {trees:3d} trees: rebuild (add+build+save) {build_s:6.2f} s, file {size_mb:.0f} MB"
                )
                for fraction in (0.01, 0.02, 0.05, 0.1, 0.2, -1.0):
                    search_k = max(10 * trees, int(n * fraction))
                    if fraction < 0:  # what the engine uses
                        search_k = annoyindex.search_k(n, 10)
                    ms, recall = [], []
                    for q, want in zip(queries, truth, strict=True):
                        t = time.perf_counter()
                        items = index.index.get_nns_by_vector(q.tolist(), 10, search_k)
                        ms.append((time.perf_counter() - t) * 1000)
                        recall.append(len(want & set(ids[items].tolist())) / 10)
                    print(
                        f"   search_k {search_k:7d} ({fraction:4.2f} n)  p50 {statistics.median(ms):7.2f} ms  "
                        f"p95 {pct(ms, 0.95):7.2f} ms  recall@10 {np.mean(recall):.3f}"
                    )
                index.unload()


if __name__ == "__main__":
    main()
