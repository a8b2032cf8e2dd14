"""create_provider: backend selection by name."""

from __future__ import annotations

import numpy as np
import pytest

from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.embedding.factory import create_provider, provider_names
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.errors import ConfigError


def test_default_is_onnx_and_lazy() -> None:
    provider = create_provider()
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert not provider.loaded
    assert provider.dimensions == 384


def test_options_are_passed() -> None:
    provider = create_provider("ONNX", batch_size=8, query_prefix="q: ")
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert (provider.batch_size, provider.query_prefix) == (8, "q: ")


def test_unknown_name_lists_valid_ones() -> None:
    assert provider_names() == ["onnx", "openai"]
    with pytest.raises(ConfigError, match="valid names: onnx, openai"):
        create_provider("word2vec")


def test_unknown_option() -> None:
    with pytest.raises(ConfigError, match="invalid options"):
        create_provider("onnx", colour="blue")


def test_real_model_behind_the_cache() -> None:
    cached = CachedQueryEmbedder(create_provider())
    first = cached.embed_query("total sales per region")
    second = cached.embed_query("total sales per region")
    assert second is first
    assert first.shape == (384,)
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-5
    assert cached.stats.provider_calls == 1
