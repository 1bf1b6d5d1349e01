"""Concurrent passage requests share model calls and each gets its own vectors."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from vectors.coalesce import Coalescing


class SlowModel:
    """Vectors that name their text; each call takes a while, so callers pile up."""

    dim = 2

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[int] = []
        self.queries = 0
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        with self.lock:
            self.calls.append(len(texts))
        time.sleep(0.05)
        if self.fail_on is not None and self.fail_on in texts:
            raise RuntimeError("model failed")
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        self.queries += 1
        return [[0.0, 1.0] for _ in texts]


def expected(texts: Sequence[str]) -> list[list[float]]:
    return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def asks(n: int) -> list[list[str]]:
    return [[f"user {i} text {j}" for j in range(i % 3 + 1)] for i in range(n)]


def test_concurrent_callers_share_calls_and_get_their_own_vectors() -> None:
    model = SlowModel()
    emb = Coalescing(model)
    with ThreadPoolExecutor(8) as pool:
        out = list(pool.map(emb.embed_passages, asks(16)))
    assert out == [expected(a) for a in asks(16)]
    assert sum(model.calls) == sum(len(a) for a in asks(16))
    assert len(model.calls) < 16  # some calls carried several callers' texts
    assert emb.calls == len(model.calls)


def test_a_call_holds_at_most_max_texts_unless_one_caller_asks_for_more() -> None:
    model = SlowModel()
    emb = Coalescing(model, max_texts=4)
    with ThreadPoolExecutor(8) as pool:
        out = list(pool.map(emb.embed_passages, [*asks(12), [f"big {i}" for i in range(7)]]))
    assert out[-1] == expected([f"big {i}" for i in range(7)])
    assert max(model.calls) <= 7 and all(n <= 4 for n in model.calls if n != 7)


def test_a_failed_call_fails_only_the_caller_whose_text_failed_it() -> None:
    model = SlowModel(fail_on="poison")
    emb = Coalescing(model)
    gate = threading.Event()

    def first() -> list[list[float]]:
        gate.set()
        return emb.embed_passages(["slow start"])

    with ThreadPoolExecutor(4) as pool:
        head = pool.submit(first)
        gate.wait()
        time.sleep(0.01)  # the first call is running: the next two queue behind it
        bad = pool.submit(emb.embed_passages, ["poison", "x"])
        good = pool.submit(emb.embed_passages, ["fine"])
        assert head.result() == expected(["slow start"])
        with pytest.raises(RuntimeError, match="model failed"):
            bad.result()
        assert good.result() == expected(["fine"])
    # shared call of 3 texts failed, then each again on its own
    assert model.calls == [1, 3, 2, 1]
    assert emb.embed_passages(["after"]) == expected(["after"])  # the next calls work


def test_queries_and_empty_asks_do_not_wait_for_passages() -> None:
    model = SlowModel()
    emb = Coalescing(model)
    assert emb.embed_passages([]) == [] and model.calls == []
    assert emb.embed_queries(["q"]) == [[0.0, 1.0]] and model.queries == 1
    assert emb.dim == 2
    with pytest.raises(TypeError):
        emb.embed_passages("one string")
