"""The e5 encoder's speed on long texts, in tokens per second, against the int8 GEMM peak of this machine.

    python -m bench.encoder [--texts 24] [--threads 2] [--peak] [--turns 320]

Texts: the repository's own Markdown (README, docs/, bench/README.md) cut into 2,000-character pieces,
as long assistant replies are cut today (technical English prose with code and tables; 512 tokens
each, the model's window, cut there). They are embedded as documents through
``OnnxE5Embedder.encode_documents`` after one warm-up call. Printed: texts, tokens, wall seconds,
tokens/s (wall), CPU seconds of the process and tokens per CPU second (steadier than wall time on a
shared machine: two idle cores give at most twice that), and the load average (other jobs' demand on
the cores). ``--threads``: the embedder's ``threads`` (batches run at once, one core each).

``--turns N``: also N short texts, the length of chat turns (the same Markdown's lines of 40-400
characters: 10-100 tokens, 30 on average), embedded in calls of 16 as the engine's embedding worker
sends them.

``--peak`` (one thread, as each batch runs): one ``MatMulIntegerToFloat`` (u8 x s8, what the encoder's
linears run on) and, for comparison, one 4-bit ``MatMulNBits`` at accuracy level 4 (the former
linears), each 1,024 x 384 x 1,536 (the FFN's shape), in giga-operations per CPU second, and the tokens
per CPU second the encoder's linears alone would reach at that peak (43 M operations a token: 12 layers
of QKV, output and FFN); then onnxruntime's float32 ``MultiHeadAttention`` on one 512-token text (9.4 M
FLOP a token over 12 layers at that length), and the ceiling of a 512-token text with both kernels at
those rates (everything else - LayerNorm, GELU, quantizing the activations - taken as free).

To measure another checkout's encoder with this script: ``PYTHONPATH=/path/to/checkout python bench/encoder.py``.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CUT = 2000
WINDOW = 512
OPS_PER_TOKEN = 2 * 12 * (384 * 1152 + 384 * 384 + 2 * 384 * 1536)


def long_texts(count: int) -> list[str]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
    found: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        found += [text[i : i + CUT] for i in range(0, len(text) - CUT + 1, CUT)]
    return found[:count]


def short_texts(count: int) -> list[str]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
    lines = (line.strip() for path in files for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if 40 <= len(line) <= 400][:count]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def encoder(texts: list[str], threads: int, call: int, what: str) -> None:
    from engine.embedders.e5onnx import OnnxE5Embedder

    model = OnnxE5Embedder(threads=threads)
    model.load()
    tokens = sum(len(model.token_ids(t)) for t in texts)
    model.encode_documents(texts[:1])
    cpu, wall = cpu_seconds(), time.perf_counter()
    for start in range(0, len(texts), call):
        model.encode_documents(texts[start : start + call])
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(
        f"encoder, {what} ({threads} threads): {len(texts)} texts, {tokens} tokens, {wall:.2f} s wall = "
        f"{tokens / wall:.0f} tokens/s ({len(texts) / wall:.1f} texts/s); {cpu:.2f} CPU s = "
        f"{tokens / cpu:.0f} tokens per CPU s; load average {load()}"
    )


def peak() -> None:
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    rows, inner, columns = 1024, 384, 1536
    rng = np.random.default_rng(0)

    def session(node: object, inputs: dict[str, np.ndarray], constants: dict[str, np.ndarray]) -> Any:
        types = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.float32): TensorProto.FLOAT}
        graph = helper.make_graph(
            [node],
            "peak",
            [helper.make_tensor_value_info(k, types[v.dtype], v.shape) for k, v in inputs.items()],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(v, k) for k, v in constants.items()],
        )
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 8
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        return onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def rate(run: Any, inputs: dict[str, np.ndarray], ops: int) -> float:
        run.run(None, inputs)
        repeats = 20
        cpu = cpu_seconds()
        for _ in range(repeats):
            run.run(None, inputs)
        return ops * repeats / (cpu_seconds() - cpu)

    a = {"a": rng.integers(0, 256, (rows, inner), dtype=np.uint8)}
    int8 = session(
        helper.make_node("MatMulIntegerToFloat", ["a", "w", "as", "ws", "az"], ["y"], domain="com.microsoft"),
        a,
        {
            "w": rng.integers(-127, 128, (inner, columns), dtype=np.int8),
            "as": np.array(0.01, np.float32),
            "ws": np.full(columns, 0.01, np.float32),
            "az": np.array(128, np.uint8),
        },
    )
    linears = rate(int8, a, 2 * rows * inner * columns)
    print(
        f"int8 GEMM (MatMulIntegerToFloat u8s8, 1 thread): {linears / 1e9:.0f} G int ops per CPU s -> the "
        f"encoder's linears alone at this rate: {linears / OPS_PER_TOKEN:.0f} tokens per CPU s; "
        f"load average {load()}"
    )
    a = {"a": rng.standard_normal((rows, inner)).astype(np.float32)}
    nbits = session(
        helper.make_node(
            "MatMulNBits",
            ["a", "w", "ws"],
            ["y"],
            domain="com.microsoft",
            K=inner,
            N=columns,
            bits=4,
            block_size=32,
            accuracy_level=4,
        ),
        a,
        {
            "w": rng.integers(0, 256, (columns, inner // 32, 16), dtype=np.uint8),
            "ws": np.full(columns * inner // 32, 0.01, np.float32),
        },
    )
    old = rate(nbits, a, 2 * rows * inner * columns)
    print(
        f"4-bit MatMulNBits, accuracy 4 (1 thread): {old / 1e9:.0f} G int ops per CPU s -> the encoder's "
        f"linears alone at this rate: {old / OPS_PER_TOKEN:.0f} tokens per CPU s"
    )
    # attention over one 512-token text: Q K^T and the weights times V, 2 x 2 x 512^2 x 384 FLOP a layer
    qkv = {n: rng.standard_normal((1, WINDOW, 384)).astype(np.float32) for n in "qkv"}
    node = helper.make_node(
        "MultiHeadAttention", ["q", "k", "v"], ["y"], domain="com.microsoft", num_heads=12
    )
    attention = rate(session(node, qkv, {}), qkv, 4 * WINDOW * WINDOW * 384)
    per_token = 12 * 4 * WINDOW * 384
    ceiling = 1 / (OPS_PER_TOKEN / linears + per_token / attention)
    print(
        f"MultiHeadAttention (float32, 1 thread, {WINDOW} tokens): {attention / 1e9:.0f} G FLOP per CPU s "
        f"-> attention alone: {attention / per_token:.0f} tokens per CPU s; linears at the int8 peak plus "
        f"attention at this rate: {ceiling:.0f} tokens per CPU s on {WINDOW}-token texts"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--texts", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--peak", action="store_true")
    parser.add_argument("--turns", type=int, default=0)
    args = parser.parse_args()
    if args.peak:
        peak()
    texts = long_texts(args.texts)
    encoder(texts, args.threads, len(texts), "512-token texts")
    if args.turns:
        encoder(short_texts(args.turns), args.threads, 16, "short turns in calls of 16")


if __name__ == "__main__":
    main()
