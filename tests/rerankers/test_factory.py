"""Choosing a reranker by name, from options or from settings (and the environment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemaseek.config import SearchSettings
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.errors import ConfigError
from schemaseek.query.rerank import Reranker as ReexportedReranker
from schemaseek.rerankers import (
    CrossEncoderReranker,
    LateInteractionReranker,
    Reranker,
    create_reranker,
    reranker_from_settings,
    reranker_names,
)
from tests.evaluation.fakes import FakeProvider
from tests.rerankers.tiny_models import build_model, build_tokenizer


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    build_model(tmp_path / "model.onnx")
    return tmp_path / "model.onnx", build_tokenizer(tmp_path / "tokenizer.json")


def test_protocol_is_reexported() -> None:
    assert ReexportedReranker is Reranker


@pytest.mark.parametrize("name", [None, "none", "NONE", " off ", ""])
def test_none_means_no_reranker(name: str | None) -> None:
    assert create_reranker(name) is None


def test_unknown_name_lists_the_valid_ones() -> None:
    assert reranker_names() == ["cross-encoder", "late-interaction"]
    with pytest.raises(ConfigError, match="none, cross-encoder, late-interaction"):
        create_reranker("colbert")


def test_cross_encoder_needs_existing_files(tmp_path: Path, files: tuple[Path, Path]) -> None:
    model, tokenizer = files
    with pytest.raises(ConfigError, match="model_path and tokenizer_path"):
        create_reranker("cross-encoder")
    with pytest.raises(ConfigError, match="tokenizer_path"):
        create_reranker("cross-encoder", model_path=model)
    with pytest.raises(ConfigError, match=r"model path not found: .*missing\.onnx"):
        create_reranker(
            "cross-encoder", model_path=tmp_path / "missing.onnx", tokenizer_path=tokenizer
        )
    with pytest.raises(ConfigError, match="invalid options"):
        create_reranker("cross-encoder", model_path=model, tokenizer_path=tokenizer, colour=1)
    made = create_reranker("cross_encoder", model_path=model, tokenizer_path=tokenizer)
    assert isinstance(made, CrossEncoderReranker)
    assert not made.loaded


def test_late_interaction_unwraps_the_embedding_provider(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    made = create_reranker("late-interaction", provider=CountingProvider(onnx_provider), alpha=0.5)
    assert isinstance(made, LateInteractionReranker)
    assert made.provider is onnx_provider
    assert made.alpha == 0.5
    own = create_reranker("late-interaction", provider=FakeProvider(), device="cpu")
    assert isinstance(own, LateInteractionReranker)
    assert isinstance(own.provider, OnnxEmbeddingProvider)
    assert not own.provider.loaded  # a new local model, loaded on first use
    with pytest.raises(ConfigError, match="device"):
        create_reranker("late-interaction", device="tpu")


def test_settings_and_environment(
    monkeypatch: pytest.MonkeyPatch, files: tuple[Path, Path], onnx_provider: OnnxEmbeddingProvider
) -> None:
    assert SearchSettings().reranker == "late-interaction"
    assert reranker_from_settings(SearchSettings()) is None  # no model: a keyword-only index
    assert isinstance(
        reranker_from_settings(SearchSettings(), onnx_provider), LateInteractionReranker
    )
    assert reranker_from_settings(SearchSettings(reranker="none"), onnx_provider) is None
    model, tokenizer = files
    monkeypatch.setenv("SCHEMASEEK_RERANKER", "cross-encoder")
    monkeypatch.setenv("SCHEMASEEK_RERANKER_MODEL_PATH", str(model))
    monkeypatch.setenv("SCHEMASEEK_RERANKER_TOKENIZER_PATH", str(tokenizer))
    monkeypatch.setenv("SCHEMASEEK_RERANK_CANDIDATES", "24")
    cross = reranker_from_settings(SearchSettings())
    assert isinstance(cross, CrossEncoderReranker)
    assert (cross.model_path, cross.tokenizer_path, cross.max_candidates) == (model, tokenizer, 24)
    monkeypatch.setenv("SCHEMASEEK_RERANKER", "late-interaction")
    late = reranker_from_settings(SearchSettings(), onnx_provider)
    assert isinstance(late, LateInteractionReranker)
    assert late.max_candidates == 24
    monkeypatch.setenv("SCHEMASEEK_RERANKER", "magic")
    with pytest.raises(ConfigError, match="unknown reranker"):
        reranker_from_settings(SearchSettings())
