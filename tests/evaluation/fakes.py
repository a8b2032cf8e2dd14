"""A small deterministic embedding provider that counts its calls."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schemaseek.embedding.base import ProgressCallback, Vectors


class FakeProvider:
    """Deterministic unit vectors from the text; counts every call and text."""

    def __init__(self, model_id: str = "fake-model", dimensions: int = 8) -> None:
        self._model_id = model_id
        self._dimensions = dimensions
        self.embed_calls = 0
        self.embedded: list[str] = []
        self.query_calls = 0

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def vector(self, text: str) -> Vectors:
        seed = sum(text.encode()) + len(text)
        raw = np.random.default_rng(seed).standard_normal(self._dimensions).astype(np.float32)
        unit: Vectors = raw / np.linalg.norm(raw)
        return unit

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        self.embed_calls += 1
        self.embedded.extend(texts)
        if progress is not None:
            progress(len(texts))
        if not texts:
            return np.empty((0, self._dimensions), dtype=np.float32)
        return np.stack([self.vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        self.query_calls += 1
        return self.vector(text)
