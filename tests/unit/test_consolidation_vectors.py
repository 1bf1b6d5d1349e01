"""Vectors consolidation reuses instead of embedding: a Summary's from its Facts',
a Topic text's from the process cache."""

from __future__ import annotations

import math
from collections.abc import Sequence

from service.consolidation import centroid


def test_centroid_is_the_unit_mean() -> None:
    v = centroid([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert v is not None
    assert math.isclose(v[0], v[1], rel_tol=1e-6) and abs(v[2]) < 1e-9
    assert math.isclose(math.hypot(*v), 1.0, rel_tol=1e-6)


def test_no_vectors_or_opposite_ones_give_none() -> None:
    assert centroid([]) is None
    assert centroid([[1.0, 0.0], [-1.0, 0.0]]) is None


def test_topic_texts_are_embedded_once_per_process() -> None:
    from core.settings import Settings
    from service.models import Models
    from tests.unit.fake_embedder import FakeEmbedder

    models = Models(Settings())
    fake = FakeEmbedder()
    seen: list[str] = []
    inner = fake.embed_passages

    def counted(texts: Sequence[str]) -> list[list[float]]:
        seen.extend(texts)
        return inner(texts)

    fake.embed_passages = counted  # type: ignore[method-assign]
    models._embedder = fake
    first = models.embed_topics(["travel: trip, flight", "books"])
    again = models.embed_topics(["books", "travel: trip, flight", "books"])
    assert seen == ["books", "travel: trip, flight"]
    assert again == [first[1], first[0], first[1]]
