"""The optimised ONNX graph is saved once and loaded by later sessions: same vectors as
optimising in memory, nothing half-written left behind, a damaged file replaced."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schemaseek.embedding.onnx import OnnxEmbeddingProvider

TEXTS = ["royalty payments for Sony", "customer orders with totals", "release distribution"]


def vectors(provider: OnnxEmbeddingProvider) -> np.ndarray:
    return np.vstack([provider.embed(TEXTS), provider.embed_query("who pays royalties?")])


def test_saved_graph_gives_the_same_vectors(tmp_path: Path) -> None:
    in_memory = vectors(OnnxEmbeddingProvider(graph_cache=False))
    assert list(tmp_path.iterdir()) == []
    first = vectors(OnnxEmbeddingProvider(graph_cache=tmp_path))
    (saved,) = tmp_path.iterdir()  # one graph for both sessions, no partial file left
    assert saved.suffix == ".onnx" and saved.stat().st_size > 1_000_000
    written = saved.stat().st_mtime_ns
    second = vectors(OnnxEmbeddingProvider(graph_cache=tmp_path))
    assert saved.stat().st_mtime_ns == written  # loaded, not written again
    np.testing.assert_allclose(first, in_memory, atol=1e-5)
    np.testing.assert_allclose(second, in_memory, atol=1e-5)


def test_a_damaged_saved_graph_is_replaced(tmp_path: Path) -> None:
    OnnxEmbeddingProvider(graph_cache=tmp_path).embed_query("warm up")
    (saved,) = tmp_path.iterdir()
    saved.write_bytes(b"not a model")
    again = OnnxEmbeddingProvider(graph_cache=tmp_path)
    reference = OnnxEmbeddingProvider(graph_cache=False)
    np.testing.assert_allclose(vectors(again), vectors(reference), atol=1e-5)
    assert saved.stat().st_size > 1_000_000 and len(list(tmp_path.iterdir())) == 1
