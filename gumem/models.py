"""The NLP pipelines and the embedder, loaded once per process on first use."""

from __future__ import annotations

import logging
import threading
from typing import Any

from extract.types import Embedder
from gumem.settings import Settings

log = logging.getLogger(__name__)


class Models:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._en: Any = None
        self._zh: Any = None
        self._embedder: Embedder | None = None

    @property
    def en(self) -> Any:
        with self._lock:
            if self._en is None:
                from extract.nlp import load_english

                self._en = load_english(self.settings.spacy_en_model)
            return self._en

    @property
    def zh(self) -> Any:
        with self._lock:
            if self._zh is None:
                from extract.nlp import load_chinese

                self._zh = load_chinese()
            return self._zh

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from extract.embedding import create_embedder

                self._embedder = create_embedder(
                    self.settings.embedding_model, self.settings.model_cache,
                    threads=self.settings.embedding_threads,
                )
                log.info("embedding model loaded (dim %d)", self._embedder.dim)
            return self._embedder
