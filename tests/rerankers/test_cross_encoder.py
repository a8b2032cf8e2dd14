"""The ONNX cross-encoder reranker, run for real on a tiny model made in the test."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pytest

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.index import SchemaIndex
from schemaseek.rerankers import CrossEncoderReranker
from schemaseek.sources.demo import demo_glossary, demo_sources
from tests.evaluation.fakes import FakeProvider
from tests.rerankers.tiny_models import build_model, build_tokenizer

QUERY = "how much did we pay the artists"
TEXTS = [
    "royalty payment to artists",
    "weather rain station",
    "orders by customer country and date",
    "unknownword sales revenue",
    "label contract for the album",
    "streams report of the month",
    "royalty payments of a label to the artist for a track " * 6,
]


def docs(texts: list[str]) -> list[Document]:
    return [
        Document(f"d{i}", DocKind.SQL_TABLE, "s", f"t{i}", text) for i, text in enumerate(texts)
    ]


@pytest.fixture()
def tokenizer(tmp_path: Path) -> Path:
    return build_tokenizer(tmp_path / "tokenizer.json")


@pytest.mark.parametrize(
    ("use_types", "output"), [(True, "n1"), (False, "n1"), (True, "n"), (True, "n2")]
)
def test_scores_and_order_equal_numpy_reference(
    tmp_path: Path, tokenizer: Path, use_types: bool, output: str
) -> None:
    model = build_model(tmp_path / "model.onnx", use_types=use_types, output=output)
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, max_length=32)
    candidates = docs(TEXTS)
    texts = [d.embedding_text() for d in candidates]
    expected = model.reference(tokenizer, QUERY, texts, max_length=32)
    np.testing.assert_allclose(reranker.score(QUERY, texts), expected, rtol=1e-5, atol=1e-5)
    ranked = reranker.rerank(QUERY, candidates)
    assert [d for d, _ in ranked] == [
        candidates[i].id for i in np.argsort(-expected, kind="stable")
    ]
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_token_types_reach_the_model(tmp_path: Path, tokenizer: Path) -> None:
    """With token_type_ids the document half is read differently from the query half."""
    build_model(tmp_path / "typed.onnx", use_types=True)
    build_model(tmp_path / "plain.onnx", use_types=False)
    texts = [d.embedding_text() for d in docs(TEXTS)]
    typed = CrossEncoderReranker(tmp_path / "typed.onnx", tokenizer).score(QUERY, texts)
    plain = CrossEncoderReranker(tmp_path / "plain.onnx", tokenizer).score(QUERY, texts)
    assert not np.allclose(typed, plain)


@pytest.mark.parametrize("batch_size", [1, 2, 3, 6, 7, 64])
def test_batch_boundaries_do_not_change_scores(
    tmp_path: Path, tokenizer: Path, batch_size: int
) -> None:
    model = build_model(tmp_path / "model.onnx")
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, batch_size=batch_size)
    texts = [d.embedding_text() for d in docs(TEXTS)]
    scores = reranker.score(QUERY, texts)
    np.testing.assert_allclose(scores, model.reference(tokenizer, QUERY, texts, 256), atol=1e-5)
    assert reranker.runs == math.ceil(len(texts) / batch_size)


def test_pairs_are_truncated_to_max_length(tmp_path: Path, tokenizer: Path) -> None:
    model = build_model(tmp_path / "model.onnx")
    long_texts = ["royalty payment artist " * 50, "weather rain " * 80]
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, max_length=16)
    expected = model.reference(tokenizer, QUERY, long_texts, max_length=16)
    np.testing.assert_allclose(reranker.score(QUERY, long_texts), expected, atol=1e-5)


def test_max_candidates_keeps_the_tail_in_fused_order(tmp_path: Path, tokenizer: Path) -> None:
    build_model(tmp_path / "model.onnx")
    candidates = docs(TEXTS)
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, max_candidates=3)
    ranked = reranker.rerank(QUERY, candidates)
    assert {d for d, _ in ranked[:3]} == {"d0", "d1", "d2"}
    assert [d for d, _ in ranked[3:]] == [d.id for d in candidates[3:]]
    assert ranked[2][1] > ranked[3][1] > ranked[-1][1]


def test_loading_is_lazy_and_empty_input_loads_nothing(tmp_path: Path, tokenizer: Path) -> None:
    build_model(tmp_path / "model.onnx")
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer)
    assert not reranker.loaded
    assert reranker.rerank(QUERY, []) == []
    assert reranker.score(QUERY, []).shape == (0,)
    assert not reranker.loaded
    reranker.rerank(QUERY, docs(TEXTS[:2]))
    assert reranker.loaded


def test_missing_files_are_named(tmp_path: Path, tokenizer: Path) -> None:
    build_model(tmp_path / "model.onnx")
    no_model = CrossEncoderReranker(tmp_path / "nope.onnx", tokenizer)  # lazy: no error yet
    with pytest.raises(EmbeddingError, match=r"model file not found: .*nope\.onnx"):
        no_model.rerank(QUERY, docs(TEXTS))
    no_tokenizer = CrossEncoderReranker(tmp_path / "model.onnx", tmp_path / "nope.json")
    with pytest.raises(EmbeddingError, match=r"tokenizer file not found: .*nope\.json"):
        no_tokenizer.rerank(QUERY, docs(TEXTS))


def test_bad_models_and_options_raise_clear_errors(tmp_path: Path, tokenizer: Path) -> None:
    (tmp_path / "garbage.onnx").write_bytes(b"not a model")
    with pytest.raises(EmbeddingError, match="cannot load"):
        CrossEncoderReranker(tmp_path / "garbage.onnx", tokenizer).score(QUERY, ["x"])
    build_model(tmp_path / "model.onnx")
    with pytest.raises(EmbeddingError, match="CUDAExecutionProvider"):
        CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, device="cuda").score(QUERY, ["x"])
    with pytest.raises(ConfigError):
        CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, batch_size=0)
    with pytest.raises(ConfigError):
        CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, device="tpu")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, max_candidates=0)


def demo_index(reranker: CrossEncoderReranker | None) -> SchemaIndex:
    """The demo with deterministic fake vectors (not degraded), fast to build; no reranker
    but ``reranker``."""
    index = SchemaIndex(
        demo_sources(),
        glossary=demo_glossary(),
        provider=FakeProvider(),
        reranker=reranker,
        settings=SearchSettings(reranker="none"),
    )
    index.build()
    return index


def test_failure_inside_rerank_keeps_the_fused_order(
    tmp_path: Path,
    tokenizer: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (tmp_path / "broken.onnx").write_bytes(b"\x00 truncated download")
    index = demo_index(CrossEncoderReranker(tmp_path / "broken.onnx", tokenizer))
    question = "royalty payments for Sony"
    with caplog.at_level(logging.WARNING, logger="schemaseek.query.rerank"):
        response = index.search(question, limit=8)
    assert "reranker failed" in caplog.text
    assert not response.degraded
    assert response.hits
    assert response.ids() == demo_index(None).search(question, limit=8).ids()
    assert not any(hit.explanation.reranked for hit in response.hits)


def test_working_cross_encoder_marks_hits_reranked(tmp_path: Path, tokenizer: Path) -> None:
    build_model(tmp_path / "model.onnx")
    reranker = CrossEncoderReranker(tmp_path / "model.onnx", tokenizer, max_candidates=10)
    index = demo_index(reranker)
    response = index.search("how much did we pay the artists", limit=5)
    assert len(response.hits) == 5
    assert all(hit.explanation.reranked for hit in response.hits)
    assert reranker.runs >= 1
