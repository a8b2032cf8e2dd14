"""Shared fixtures: the real embedding model (loaded once) and the demo index."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from tests.helpers.datasets import check_marked


@pytest.fixture(scope="session")
def onnx_provider() -> OnnxEmbeddingProvider:
    """The real all-MiniLM-L6-v2 int8 model, shared by the whole session."""
    return OnnxEmbeddingProvider()


@pytest.fixture()
def counting_provider(onnx_provider: OnnxEmbeddingProvider) -> CountingProvider:
    return CountingProvider(onnx_provider)


class FlakyProvider:
    """Wraps a real provider and fails on demand, to exercise degraded mode and recovery."""

    def __init__(self, inner: OnnxEmbeddingProvider) -> None:
        self.inner = inner
        self.fail_embed = False
        self.fail_query = False

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        if self.fail_embed:
            raise RuntimeError("model unavailable (test)")
        return self.inner.embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        if self.fail_query:
            raise RuntimeError("model unavailable (test)")
        return self.inner.embed_query(text)


@pytest.fixture()
def flaky_provider(onnx_provider: OnnxEmbeddingProvider) -> FlakyProvider:
    return FlakyProvider(onnx_provider)


def unit(vectors: np.ndarray) -> np.ndarray:
    normalised: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalised


def pytest_runtest_setup(item: pytest.Item) -> None:
    check_marked(item)
