"""CachedQueryEmbedder: hits, misses, TTL, LRU, in-flight de-duplication, failures."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, Vectors
from schemaseek.embedding.cache import CachedQueryEmbedder, CacheStats
from schemaseek.embedding.counting import CountingProvider
from schemaseek.errors import EmbeddingError


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeProvider:
    """Deterministic vectors; optionally blocks until released or fails."""

    model_id = "fake"
    dimensions = 4

    def __init__(self, gate: threading.Event | None = None, fail: bool = False) -> None:
        self.gate = gate
        self.fail = fail
        self.calls = 0
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        rows = [self._vector(t) for t in texts]
        return np.stack(rows) if rows else np.empty((0, 4), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            self.calls += 1
        if self.gate is not None:
            assert self.gate.wait(10)
        if self.fail:
            raise EmbeddingError(f"boom: {text}")
        return self._vector(text)

    @staticmethod
    def _vector(text: str) -> Vectors:
        vector = np.array([len(text), 1.0, 2.0, 3.0], dtype=np.float32)
        return vector / np.linalg.norm(vector)


def run_threads(n: int, target: Callable[[], None]) -> None:
    threads = [threading.Thread(target=target) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)


def release_when(condition: Callable[[], bool], gate: threading.Event) -> threading.Thread:
    """Start a thread that opens ``gate`` once ``condition`` holds (or after 5 s)."""

    def watch() -> None:
        deadline = time.monotonic() + 5.0
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.001)
        gate.set()

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


def test_is_a_provider_and_delegates() -> None:
    cached = CachedQueryEmbedder(FakeProvider())
    assert isinstance(cached, EmbeddingProvider)
    assert cached.model_id == "fake"
    assert cached.dimensions == 4
    assert cached.embed(["ab", "c"]).shape == (2, 4)
    assert cached.stats == CacheStats()


def test_hit_and_miss() -> None:
    fake = FakeProvider()
    cached = CachedQueryEmbedder(fake)
    first = cached.embed_query("q")
    second = cached.embed_query("q")
    assert second is first
    cached.embed_query("other")
    assert cached.stats == CacheStats(hits=1, misses=2, provider_calls=2)
    assert fake.calls == 2
    assert len(cached) == 2


def test_cached_vectors_are_read_only() -> None:
    vector = CachedQueryEmbedder(FakeProvider()).embed_query("q")
    with pytest.raises(ValueError):
        vector[0] = 5.0


def test_ttl_expiry_with_fake_timer() -> None:
    clock = FakeClock()
    fake = FakeProvider()
    cached = CachedQueryEmbedder(fake, ttl=600, timer=clock)
    cached.embed_query("q")
    clock.now = 599.0
    cached.embed_query("q")
    assert fake.calls == 1
    clock.now = 601.0
    assert len(cached) == 0
    cached.embed_query("q")
    assert fake.calls == 2
    assert cached.stats == CacheStats(hits=1, misses=2, provider_calls=2)


def test_lru_eviction() -> None:
    fake = FakeProvider()
    cached = CachedQueryEmbedder(fake, maxsize=2)
    cached.embed_query("a")
    cached.embed_query("b")
    cached.embed_query("a")  # a is now the most recently used
    cached.embed_query("c")  # evicts b
    assert fake.calls == 3
    cached.embed_query("a")
    assert fake.calls == 3
    cached.embed_query("b")
    assert fake.calls == 4


def test_clear() -> None:
    fake = FakeProvider()
    cached = CachedQueryEmbedder(fake)
    cached.embed_query("a")
    cached.clear()
    cached.embed_query("a")
    assert fake.calls == 2


def test_concurrent_identical_queries_call_provider_once() -> None:
    gate = threading.Event()
    fake = FakeProvider(gate=gate)
    cached = CachedQueryEmbedder(fake)
    results: list[Vectors] = []

    def ask() -> None:
        results.append(cached.embed_query("same question"))

    releaser = release_when(lambda: cached.stats.misses == 8, gate)
    run_threads(8, ask)
    releaser.join(10)
    assert fake.calls == 1
    assert len(results) == 8
    assert all(r is results[0] for r in results)
    assert cached.stats == CacheStats(hits=0, misses=8, provider_calls=1, deduplicated=7)


def test_failures_reach_every_waiter_and_are_not_cached() -> None:
    gate = threading.Event()
    fake = FakeProvider(gate=gate, fail=True)
    cached = CachedQueryEmbedder(fake)
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            cached.embed_query("bad")
        except EmbeddingError as exc:
            errors.append(exc)

    releaser = release_when(lambda: cached.stats.misses == 4, gate)
    run_threads(4, ask)
    releaser.join(10)
    assert len(errors) == 4
    assert all("boom: bad" in str(e) for e in errors)
    assert fake.calls == 1
    with pytest.raises(EmbeddingError):
        cached.embed_query("bad")
    assert fake.calls == 2
    fake.fail = False
    assert cached.embed_query("bad").shape == (4,)
    assert fake.calls == 3
    assert len(cached) == 1


def test_counting_provider_counts() -> None:
    counting = CountingProvider(FakeProvider())
    assert isinstance(counting, EmbeddingProvider)
    assert counting.total_calls == 0
    counting.embed(["a", "b", "c"])
    counting.embed([])
    counting.embed_query("q")
    assert (counting.embed_calls, counting.embedded_texts, counting.query_calls) == (2, 3, 1)
    assert counting.total_calls == 3
    assert (counting.model_id, counting.dimensions) == ("fake", 4)
    counting.reset()
    assert counting.total_calls == 0 and counting.embedded_texts == 0


def test_cache_in_front_of_counting_provider() -> None:
    counting = CountingProvider(FakeProvider())
    cached = CachedQueryEmbedder(counting)
    for _ in range(5):
        cached.embed_query("repeat")
    assert counting.query_calls == 1
    assert counting.embed_calls == 0
