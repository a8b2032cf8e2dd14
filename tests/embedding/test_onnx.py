"""The local ONNX all-MiniLM-L6-v2 provider, run for real (no mocks of onnxruntime)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.onnx import (
    DEFAULT_MODEL_ID,
    OnnxEmbeddingProvider,
    default_model_path,
    default_tokenizer_path,
)
from schemaseek.errors import ConfigError, EmbeddingError

TEXTS = [
    "orders.order_id: integer primary key of the order",
    "royalty payment",
    "x",
    "customers table: one row per customer with its billing segment and currency " * 4,
    "",
    "weather forecast",
    "transactions_1k.Amount (integer): amount of the transaction in the local currency",
]


@pytest.fixture(scope="module")
def provider() -> OnnxEmbeddingProvider:
    return OnnxEmbeddingProvider()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_default_files_are_found() -> None:
    assert default_model_path().is_file()
    tokenizer = default_tokenizer_path()
    assert tokenizer.is_file()
    assert tokenizer.parts[-4:] == (
        "embeddings",
        "data",
        "all-MiniLM-L6-v2-onnx-int8",
        "tokenizer.json",
    )


def test_implements_protocol(provider: OnnxEmbeddingProvider) -> None:
    assert isinstance(provider, EmbeddingProvider)
    assert provider.model_id == DEFAULT_MODEL_ID
    assert provider.dimensions == 384
    assert provider.query_prefix == ""


def test_construction_is_lazy(tmp_path: Path) -> None:
    fresh = OnnxEmbeddingProvider()
    assert not fresh.loaded
    missing = OnnxEmbeddingProvider(model_path=tmp_path / "nope.onnx")  # no error yet
    assert not missing.loaded
    fresh.embed_query("load me")
    assert fresh.loaded


def test_empty_input_does_not_load() -> None:
    fresh = OnnxEmbeddingProvider()
    out = fresh.embed([])
    assert out.shape == (0, 384)
    assert out.dtype == np.float32
    assert not fresh.loaded


def test_shapes_dtype_and_unit_norms(provider: OnnxEmbeddingProvider) -> None:
    docs = provider.embed(TEXTS)
    assert docs.shape == (len(TEXTS), 384)
    assert docs.dtype == np.float32
    assert docs.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = provider.embed_query("royalty payment")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert query.flags.c_contiguous
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_deterministic(provider: OnnxEmbeddingProvider) -> None:
    np.testing.assert_array_equal(provider.embed(TEXTS), provider.embed(TEXTS))
    np.testing.assert_array_equal(provider.embed_query("abc"), provider.embed_query("abc"))


def test_batch_agrees_with_single(provider: OnnxEmbeddingProvider) -> None:
    batch = provider.embed(TEXTS)
    for row, text in zip(batch, TEXTS, strict=True):
        assert cosine(row, provider.embed_query(text)) > 0.9999
        assert cosine(row, provider.embed([text])[0]) > 0.9999


def test_padding_and_order_are_restored() -> None:
    small_batches = OnnxEmbeddingProvider(batch_size=2)
    texts = TEXTS + [t.upper() for t in TEXTS]
    together = small_batches.embed(texts)
    alone = np.stack([small_batches.embed([t])[0] for t in texts])
    sims = together @ alone.T
    assert np.all(np.diag(sims) > 0.9999)
    reversed_rows = small_batches.embed(texts[::-1])[::-1]
    np.testing.assert_allclose(reversed_rows, together, atol=1e-5)


def test_progress_called_after_each_batch() -> None:
    seen: list[int] = []
    OnnxEmbeddingProvider(batch_size=3).embed(TEXTS, progress=seen.append)
    assert seen == [3, 6, 7]


def test_token_budget_splits_long_texts() -> None:
    texts = ["short", "word " * 200, "tiny", "word " * 150, "mid length text here"]
    seen: list[int] = []
    budgeted = OnnxEmbeddingProvider(max_batch_tokens=256)
    vectors = budgeted.embed(texts, progress=seen.append)
    assert seen == [3, 4, 5]  # three short texts together, then each long one alone
    reference = OnnxEmbeddingProvider(max_batch_tokens=10**6).embed(texts)
    assert np.all(np.sum(vectors * reference, axis=1) > 0.9999)


def test_semantic_sanity(provider: OnnxEmbeddingProvider) -> None:
    query = provider.embed_query("royalty payment")
    near, far = provider.embed(["royalties paid to artists", "weather forecast"])
    assert cosine(query, near) > cosine(query, far) + 0.2


def test_long_text_is_truncated(provider: OnnxEmbeddingProvider) -> None:
    vector = provider.embed(["word " * 3000])[0]
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_query_prefix_is_prepended() -> None:
    prefixed = OnnxEmbeddingProvider(query_prefix="query: ")
    assert prefixed.model_id == DEFAULT_MODEL_ID
    query = prefixed.embed_query("royalty payment")
    with_prefix, without = prefixed.embed(["query: royalty payment", "royalty payment"])
    assert cosine(query, with_prefix) > 0.9999
    assert cosine(query, without) < 0.999


def test_query_session_is_single_threaded(provider: OnnxEmbeddingProvider) -> None:
    provider.embed(["bulk"])
    query_options = provider._query_session.get_session_options()
    assert query_options.intra_op_num_threads == 1
    assert provider._bulk_session is not provider._query_session


def test_concurrent_first_use_loads_once() -> None:
    fresh = OnnxEmbeddingProvider()
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(fresh.embed_query("concurrent"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 8
    for vector in results[1:]:
        np.testing.assert_array_equal(vector, results[0])


def test_missing_model_file(tmp_path: Path) -> None:
    missing = OnnxEmbeddingProvider(model_path=tmp_path / "nope.onnx")
    with pytest.raises(EmbeddingError, match=r"model file not found: .*nope\.onnx"):
        missing.embed_query("x")
    with pytest.raises(EmbeddingError):
        missing.embed(["x"])


def test_missing_tokenizer_file(tmp_path: Path) -> None:
    missing = OnnxEmbeddingProvider(tokenizer_path=tmp_path / "tokenizer.json")
    with pytest.raises(EmbeddingError, match="tokenizer file not found"):
        missing.embed_query("x")


def test_corrupt_model_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"this is not an onnx model")
    provider = OnnxEmbeddingProvider(model_path=broken)
    assert provider.model_id == "onnx:broken.onnx"
    with pytest.raises(EmbeddingError, match="onnxruntime cannot load"):
        provider.embed_query("x")


def test_dimension_mismatch() -> None:
    with pytest.raises(EmbeddingError, match="wrong dimensions"):
        OnnxEmbeddingProvider(dimensions=768).embed_query("x")


@pytest.mark.skipif(
    "CUDAExecutionProvider" in ort.get_available_providers(), reason="a CUDA provider is present"
)
def test_cuda_without_gpu_names_the_extra() -> None:
    gpu = OnnxEmbeddingProvider(device="cuda")
    assert not gpu.loaded
    with pytest.raises(EmbeddingError, match=r"schemaseek\[gpu\]"):
        gpu.embed_query("x")


def test_auto_device_falls_back_to_cpu() -> None:
    vector = OnnxEmbeddingProvider(device="auto").embed_query("x")
    assert vector.shape == (384,)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"device": "tpu"},
        {"batch_size": 0},
        {"max_batch_tokens": 0},
        {"dimensions": 0},
        {"max_tokens": 1},
    ],
)
def test_invalid_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        OnnxEmbeddingProvider(**kwargs)  # type: ignore[arg-type]
