"""The one onnxruntime session builder, used by the embedder and the cross-encoder alike."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort
import pytest

from schemaseek.embedding import onnx as onnx_module
from schemaseek.embedding import sessions
from schemaseek.embedding.onnx import OnnxEmbeddingProvider, default_model_path
from schemaseek.embedding.sessions import (
    CPU_PROVIDER,
    CUDA_PROVIDER,
    execution_providers,
    onnx_session,
)
from schemaseek.errors import EmbeddingError
from schemaseek.rerankers import cross_encoder
from schemaseek.rerankers.cross_encoder import CrossEncoderReranker
from tests.rerankers.tiny_models import build_model, build_tokenizer

HAS_CUDA = CUDA_PROVIDER in ort.get_available_providers()


def test_both_model_users_share_the_builder() -> None:
    assert vars(onnx_module)["onnx_session"] is sessions.onnx_session
    assert vars(cross_encoder)["onnx_session"] is sessions.onnx_session
    assert not hasattr(onnx_module.OnnxEmbeddingProvider, "_providers")
    assert not hasattr(cross_encoder, "_new_session")


def test_session_options_are_chosen_once() -> None:
    session = onnx_session(default_model_path(), device="cpu", intra_op_threads=1)
    options = session.get_session_options()
    assert session.get_providers() == [CPU_PROVIDER]
    assert options.intra_op_num_threads == 1
    assert options.inter_op_num_threads == 1
    assert options.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert options.log_severity_level == 3


def test_embedder_query_and_bulk_sessions() -> None:
    provider = OnnxEmbeddingProvider(bulk_threads=2)
    provider.embed(["royalty payments"])
    query = provider._query_session.get_session_options()
    bulk = provider._bulk_session.get_session_options()
    assert (query.intra_op_num_threads, bulk.intra_op_num_threads) == (1, 2)


def test_cross_encoder_session_uses_its_threads(tmp_path: Path) -> None:
    tokenizer = build_tokenizer(tmp_path / "tokenizer.json")
    model = tmp_path / "model.onnx"
    build_model(model)
    reranker = CrossEncoderReranker(model, tokenizer, threads=2)
    reranker.score("royalty payments", ["royalty payment table"])
    options = reranker._session.get_session_options()
    assert options.intra_op_num_threads == 2
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert reranker._session.get_providers() == [CPU_PROVIDER]


def test_providers_by_device() -> None:
    assert execution_providers("cpu") == [CPU_PROVIDER]
    expected = [CUDA_PROVIDER, CPU_PROVIDER] if HAS_CUDA else [CPU_PROVIDER]
    assert execution_providers("auto") == expected


@pytest.mark.skipif(HAS_CUDA, reason="a CUDA provider is present")
def test_cuda_without_gpu_names_the_extra(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match=r"schemaseek\[gpu\]"):
        execution_providers("cuda")
    with pytest.raises(EmbeddingError, match=r"schemaseek\[gpu\]"):
        onnx_session(default_model_path(), device="cuda", intra_op_threads=1)
    tokenizer = build_tokenizer(tmp_path / "tokenizer.json")
    model = tmp_path / "model.onnx"
    build_model(model)
    with pytest.raises(EmbeddingError, match=r"schemaseek\[gpu\]"):
        CrossEncoderReranker(model, tokenizer, device="cuda").score("q", ["t"])


def test_unloadable_model_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(EmbeddingError, match=r"onnxruntime cannot load .*broken\.onnx"):
        onnx_session(broken, device="cpu", intra_op_threads=1)
