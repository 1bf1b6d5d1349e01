"""A deterministic test-only Embedder: hashed character n-grams → unit vector."""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Sequence


class FakeEmbedder:
    """Bag of character 1-3-grams hashed into ``dim`` buckets, L2-normalised.

    Similar strings get similar vectors, which is all topic matching tests need.
    Never used by production code.
    """

    def __init__(self, dim: int = 256) -> None:
        self._dim = dim
        self.calls = 0

    @property
    def dim(self) -> int:
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def _vector(self, text: str) -> list[float]:
        norm = " ".join(unicodedata.normalize("NFKC", text).lower().split())
        vec = [0.0] * self._dim
        for n in (1, 2, 3):
            for i in range(len(norm) - n + 1):
                gram = norm[i : i + n]
                digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "big") % self._dim
                sign = 1.0 if digest[4] & 1 else -1.0
                vec[bucket] += sign * n
        length = math.sqrt(sum(v * v for v in vec))
        return [v / length for v in vec] if length else vec
