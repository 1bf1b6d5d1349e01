"""The NLP pipelines and the embedder, loaded once per process on first use."""

from __future__ import annotations

import logging
import threading
from typing import Any

from core.settings import Settings
from extract.types import Embedder

log = logging.getLogger(__name__)


class Models:
    def __init__(self, settings: Settings) -> None:
        import packs

        self.settings = settings
        # the domain packs every extractor reads; a bad pack raises ConfigError here
        self.pack = packs.activate(settings.packs)
        self._lock = threading.Lock()
        self._en: Any = None
        self._zh: Any = None
        self._embedder: Embedder | None = None
        self._queries: dict[str, list[float]] = {}
        self._topics: dict[str, list[float]] = {}
        self._topics_lock = threading.Lock()

    @property
    def en(self) -> Any:
        with self._lock:
            if self._en is None:
                from extract.nlp import load_english

                self._en = load_english(self.settings.spacy_en_model, self.pack)
            return self._en

    @property
    def zh(self) -> Any:
        with self._lock:
            if self._zh is None:
                from extract.nlp import load_chinese

                self._zh = load_chinese()
            return self._zh

    def embed_query(self, text: str) -> list[float]:
        """Query vectors are cached: agents repeat queries, and recall is latency-bound."""
        hit = self._queries.get(text)
        if hit is None:
            hit = self.embedder.embed_queries([text])[0]
            _keep(self._queries, text, hit)
        return hit

    def embed_topics(self, texts: list[str]) -> list[list[float]]:
        """Topic texts (a name and its pack aliases) are cached: every user's new Topics
        come from the same packs, so their texts repeat across users."""
        with self._topics_lock:
            have = {t: self._topics[t] for t in texts if t in self._topics}
        todo = sorted(set(texts) - have.keys())
        if todo:
            have.update(zip(todo, self.embedder.embed_passages(todo), strict=True))
            with self._topics_lock:
                for text in todo:
                    _keep(self._topics, text, have[text])
        return [have[t] for t in texts]

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from vectors.coalesce import Coalescing
                from vectors.embedding import create_embedder

                # users processed side by side share model calls (vectors/coalesce.py)
                self._embedder = Coalescing(
                    create_embedder(
                        self.settings.embedding_model,
                        self.settings.model_cache,
                        threads=self.settings.embedding_threads,
                        spin=self.settings.embedding_spin,
                    )
                )
                log.info("embedding model loaded (dim %d)", self._embedder.dim)
            return self._embedder


CACHED = 4096  # texts each vector cache keeps, oldest dropped first


def _keep(cache: dict[str, list[float]], text: str, vector: list[float]) -> None:
    if len(cache) >= CACHED:
        cache.pop(next(iter(cache)))
    cache[text] = vector
