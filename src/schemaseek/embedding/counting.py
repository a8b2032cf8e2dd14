"""A provider wrapper that counts calls, to prove how much embedding work a path does."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, ProviderWrapper, Vectors


class CountingProvider(ProviderWrapper):
    """Delegates to ``provider`` and counts its use (thread-safe).

    Attributes:
        embed_calls: calls to :meth:`embed`.
        embedded_texts: texts passed to :meth:`embed`, summed.
        query_calls: calls to :meth:`embed_query`.
    """

    def __init__(self, provider: EmbeddingProvider) -> None:
        super().__init__(provider)
        self._lock = threading.Lock()
        self.embed_calls = 0
        self.embedded_texts = 0
        self.query_calls = 0

    @property
    def total_calls(self) -> int:
        """``embed_calls + query_calls``: zero proves no embedding happened."""
        with self._lock:
            return self.embed_calls + self.query_calls

    def reset(self) -> None:
        """Set every counter back to zero."""
        with self._lock:
            self.embed_calls = self.embedded_texts = self.query_calls = 0

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Count, then embed documents with the wrapped provider."""
        with self._lock:
            self.embed_calls += 1
            self.embedded_texts += len(texts)
        return self.provider.embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        """Count, then embed one query with the wrapped provider."""
        with self._lock:
            self.query_calls += 1
        return self.provider.embed_query(text)
