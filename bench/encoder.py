"""The e5 encoder's speed on long texts, in tokens per second, against the int8 GEMM peak of this machine.

    python -m bench.encoder [--texts 24] [--threads 2] [--peak]

Texts: the repository's own Markdown (README, docs/, bench/README.md) cut into 2,000-character pieces,
as long assistant replies are cut today (technical English prose with code and tables; about 500 tokens
each). They are embedded as documents through ``OnnxE5Embedder.encode_documents`` after one warm-up
call. Printed: texts, tokens, wall seconds, tokens/s (wall), CPU seconds of the process and tokens per
CPU second (steadier than wall time on a shared machine: two idle cores give at most twice that), and
the load average (other jobs' demand on the cores).

``--peak``: one ``MatMulIntegerToFloat`` (u8 x s8, what the encoder's linears run on) and, for
comparison, one 4-bit ``MatMulNBits`` at accuracy level 4 (the former linears), each 1,024 x 384 x 1,536
(the FFN's shape), in giga-operations per CPU second; and the tokens per CPU second the encoder's
linears alone would reach at that peak (43 M operations a token: 12 layers of QKV, output and FFN).

To measure another checkout's encoder with this script: ``PYTHONPATH=/path/to/checkout python bench/encoder.py``.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CUT = 2000
OPS_PER_TOKEN = 2 * 12 * (384 * 1152 + 384 * 384 + 2 * 384 * 1536)


def long_texts(count: int) -> list[str]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
    found: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        found += [text[i : i + CUT] for i in range(0, len(text) - CUT + 1, CUT)]
    return found[:count]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def encoder(count: int, threads: int) -> None:
    from engine.embedders.e5onnx import OnnxE5Embedder

    model = OnnxE5Embedder(threads=threads)
    model.load()
    texts = long_texts(count)
    tokens = sum(len(model.token_ids(t)) for t in texts)
    model.encode_documents(texts[:1])
    cpu, wall = cpu_seconds(), time.perf_counter()
    model.encode_documents(texts)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(
        f"encoder ({threads} threads): {len(texts)} texts, {tokens} tokens, {wall:.2f} s wall = "
        f"{tokens / wall:.0f} tokens/s ({len(texts) / wall:.1f} texts/s); {cpu:.2f} CPU s = "
        f"{tokens / cpu:.0f} tokens per CPU s; load average {load()}"
    )


def peak(threads: int) -> None:
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    rows, inner, columns = 1024, 384, 1536
    rng = np.random.default_rng(0)

    def session(node: object, input_type: int, constants: dict[str, np.ndarray]) -> object:
        graph = helper.make_graph(
            [node],
            "peak",
            [helper.make_tensor_value_info("a", input_type, [rows, inner])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(v, k) for k, v in constants.items()],
        )
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 8
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    int8 = session(
        helper.make_node("MatMulIntegerToFloat", ["a", "w", "as", "ws", "az"], ["y"], domain="com.microsoft"),
        TensorProto.UINT8,
        {
            "w": rng.integers(-127, 128, (inner, columns), dtype=np.int8),
            "as": np.array(0.01, np.float32),
            "ws": np.full(columns, 0.01, np.float32),
            "az": np.array(128, np.uint8),
        },
    )
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
        TensorProto.FLOAT,
        {
            "w": rng.integers(0, 256, (columns, inner // 32, 16), dtype=np.uint8),
            "ws": np.full(columns * inner // 32, 0.01, np.float32),
        },
    )
    inputs = {
        "int8 GEMM (MatMulIntegerToFloat u8s8)": (int8, rng.integers(0, 256, (rows, inner), dtype=np.uint8)),
        "4-bit MatMulNBits, accuracy 4": (nbits, rng.standard_normal((rows, inner)).astype(np.float32)),
    }
    ops = 2 * rows * inner * columns
    for name, (run, a) in inputs.items():
        run.run(None, {"a": a})  # type: ignore[attr-defined]
        repeats = 20
        cpu = cpu_seconds()
        for _ in range(repeats):
            run.run(None, {"a": a})  # type: ignore[attr-defined]
        per_op = ops * repeats / (cpu_seconds() - cpu)
        print(
            f"{name}: {per_op / 1e9:.0f} G int ops per CPU s -> the encoder's linears alone at this rate: "
            f"{per_op / OPS_PER_TOKEN:.0f} tokens per CPU s; load average {load()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--texts", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--peak", action="store_true")
    args = parser.parse_args()
    if args.peak:
        peak(args.threads)
    encoder(args.texts, args.threads)


if __name__ == "__main__":
    main()
