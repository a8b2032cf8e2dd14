"""Shared fixtures: the real embedding model (loaded once) and the demo index.

The commands a test runs keep their snapshots in a fresh data directory of this session (never
the user's); document vectors stay in the user's content-hash cache (``SCHEMASEEK_CACHE_DIR``,
else where the commands would put it), so a warm machine does not embed the datasets again.
A test about what a first run embeds gives itself an empty cache of its own.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Sequence

import numpy as np
import pytest

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from tests.helpers.datasets import check_marked

if "SCHEMASEEK_CACHE_DIR" not in os.environ:
    from schemaseek.config import default_cache_dir

    os.environ["SCHEMASEEK_CACHE_DIR"] = str(default_cache_dir())
_SESSION_DATA = tempfile.mkdtemp(prefix="schemaseek-test-data-")
os.environ["SCHEMASEEK_DATA_DIR"] = _SESSION_DATA
atexit.register(shutil.rmtree, _SESSION_DATA, ignore_errors=True)


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
