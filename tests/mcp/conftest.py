"""Indexes shared by the MCP tests: the demo (real model) and the GitLab schema (disk cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemaseek.config import default_cache_dir
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_sources
from schemaseek.sources.graphql import load_sdl
from tests.helpers.datasets import DATASETS, dataset_missing

GITLAB_SDL = DATASETS / "graphql" / "gitlab.graphql"
GITLAB_QUESTIONS = Path(__file__).resolve().parents[2] / "bench" / "questions" / "gitlab.jsonl"
VECTOR_CACHE = default_cache_dir() / "embeddings"


@pytest.fixture(scope="session")
def demo_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    """The embedded demo with its glossary and the real model."""
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=onnx_provider)
    assert not index.build().degraded
    return index


def gitlab_questions(count: int) -> list[str]:
    """The first ``count`` questions of our labelled GitLab set."""
    lines = GITLAB_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()][:count]


@pytest.fixture(scope="session")
def gitlab_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    """The GitLab schema (~9K documents); document vectors come from the on-disk cache."""
    if not GITLAB_SDL.is_file():
        dataset_missing(f"{GITLAB_SDL} is not available")
    provider = DiskCachedProvider(onnx_provider, VECTOR_CACHE)
    index = SchemaIndex([load_sdl(GITLAB_SDL, "gitlab")], provider=provider)
    assert not index.build().degraded
    return index
