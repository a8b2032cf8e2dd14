"""A query-embedding cache: LRU + TTL, with concurrent identical requests de-duplicated."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from cachetools import TTLCache

from schemaseek.embedding.base import EmbeddingProvider, ProviderWrapper, Vectors


@dataclass(frozen=True)
class CacheStats:
    """A snapshot of a :class:`CachedQueryEmbedder`'s counters.

    ``misses`` counts every request not served from the cache, including the ``deduplicated``
    ones that waited on an identical in-flight request instead of calling the provider.
    ``provider_calls`` counts calls to the wrapped provider's ``embed_query`` (failed ones too).
    """

    hits: int = 0
    misses: int = 0
    provider_calls: int = 0
    deduplicated: int = 0


class CachedQueryEmbedder(ProviderWrapper):
    """Wraps a provider so that ``embed_query`` is cached by query text.

    Entries expire ``ttl`` seconds after insertion and the least recently used are evicted
    beyond ``maxsize``. While one thread computes a query, other threads asking for the same
    text wait for its result rather than calling the provider again. A failure reaches every
    waiter and is not cached. Cached vectors are returned read-only (they are shared).
    ``embed`` is passed straight through. The wrapper is itself an
    :class:`~schemaseek.embedding.base.EmbeddingProvider`.

    Args:
        provider: the provider to wrap.
        maxsize: most queries kept.
        ttl: seconds an entry lives.
        timer: clock for expiry (monotonic seconds); injectable for tests.
    """

    def __init__(
        self,
        provider: EmbeddingProvider,
        *,
        maxsize: int = 1024,
        ttl: float = 600.0,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(provider)
        self._cache: TTLCache[str, Vectors] = TTLCache(maxsize=maxsize, ttl=ttl, timer=timer)
        self._inflight: dict[str, Future[Vectors]] = {}
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0
        self._provider_calls = 0
        self._deduplicated = 0

    @property
    def stats(self) -> CacheStats:
        """Current counters."""
        with self._lock:
            return CacheStats(self._hits, self._misses, self._provider_calls, self._deduplicated)

    def __len__(self) -> int:
        """Number of live cached queries."""
        with self._lock:
            self._cache.expire()
            return len(self._cache)

    def clear(self) -> None:
        """Drop every cached vector (in-flight requests still complete)."""
        with self._lock:
            self._cache.clear()

    def cached(self, text: str) -> bool:
        """Whether ``text`` has a live cached vector (not counted as a hit, not refreshed)."""
        with self._lock:
            return text in self._cache

    def prime(self, text: str, vector: Vectors) -> None:
        """Cache a query vector computed elsewhere, e.g. by one batched call for several
        queries, so that the next :meth:`embed_query` of ``text`` is a cache hit."""
        stored = np.array(vector, dtype=np.float32, copy=True)
        stored.setflags(write=False)
        with self._lock:
            self._cache[text] = stored

    def embed_query(self, text: str) -> Vectors:
        """Embed one query, from the cache when possible."""
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._hits += 1
                return cached
            self._misses += 1
            pending = self._inflight.get(text)
            if pending is None:
                future: Future[Vectors] = Future()
                self._inflight[text] = future
                self._provider_calls += 1
            else:
                self._deduplicated += 1
        if pending is not None:
            return pending.result()
        return self._compute(text, future)

    def _compute(self, text: str, future: Future[Vectors]) -> Vectors:
        try:
            vector = np.array(self.provider.embed_query(text), dtype=np.float32, copy=True)
        except BaseException as exc:
            with self._lock:
                del self._inflight[text]
            future.set_exception(exc)
            raise
        vector.setflags(write=False)
        with self._lock:
            self._cache[text] = vector
            del self._inflight[text]
        future.set_result(vector)
        return vector
