"""Indexes shared by the MCP tests: the demo (real model) and the GitHub schema (disk cache)."""

from __future__ import annotations

import pytest

from schemaseek.config import default_cache_dir
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_sources
from schemaseek.sources.graphql import load_sdl
from tests.helpers.datasets import DATASETS, dataset_missing

GITHUB_SDL = DATASETS / "graphql" / "github.graphql"
VECTOR_CACHE = default_cache_dir() / "embeddings"


@pytest.fixture(scope="session")
def demo_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    """The embedded demo with its glossary and the real model."""
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=onnx_provider)
    assert not index.build().degraded
    return index


@pytest.fixture(scope="session")
def github_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    """The GitHub schema (~9K documents); document vectors come from the on-disk cache."""
    if not GITHUB_SDL.is_file():
        dataset_missing(f"{GITHUB_SDL} is not available")
    provider = DiskCachedProvider(onnx_provider, VECTOR_CACHE)
    index = SchemaIndex([load_sdl(GITHUB_SDL, "github")], provider=provider)
    assert not index.build().degraded
    return index
