"""QuestionStore and the provider wrappers over it: a repeated question runs no model, in this
process or the next; cold and warm answers are identical; a broken store never fails a search."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.question_store import (
    PersistentQuestions,
    PersistentTokenQuestions,
    QuestionStore,
    find_token_vectors,
    persist_questions,
)


class TokenModel:
    """Deterministic query vectors and token vectors, counting every call."""

    model_id = "token-model"
    dimensions = 4

    def __init__(self) -> None:
        self.query_calls = 0
        self.token_calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        self.query_calls += 1
        return self._vector(text)

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Vectors]:
        self.token_calls.append(list(texts))
        rng = [np.random.default_rng(len(t) + (1000 if query else 0)) for t in texts]
        shapes = [(len(t.split()), 4) for t in texts]
        return [r.normal(size=s).astype(np.float32) for r, s in zip(rng, shapes, strict=True)]

    @staticmethod
    def _vector(text: str) -> Vectors:
        return np.array([len(text), 1.0, 2.0, 3.1234567], dtype=np.float32)


class QueryOnlyModel(TokenModel):
    token_vectors = None  # type: ignore[assignment]


def test_arrays_round_trip_by_kind_and_model(tmp_path: Path) -> None:
    store = QuestionStore(tmp_path, "model-a")
    matrix = np.arange(6, dtype=np.float16).reshape(2, 3)
    store.put("tokens", "royalty", matrix)
    store.put("query", "royalty", np.ones(3, dtype=np.float32))
    got = store.get("tokens", "royalty")
    assert got is not None and got.dtype == np.float16 and np.array_equal(got, matrix)
    query = store.get("query", "royalty")
    assert query is not None and query.shape == (1, 3) and query.dtype == np.float32
    assert store.get("tokens", "royalties") is None
    assert QuestionStore(tmp_path, "model-b").get("tokens", "royalty") is None
    store.close()
    again = QuestionStore(tmp_path, "model-a")  # another process, same file
    stored = again.get("tokens", "royalty")
    assert stored is not None and np.array_equal(stored, matrix)


def test_a_read_creates_no_file(tmp_path: Path) -> None:
    store = QuestionStore(tmp_path, "model-a")
    assert store.get("query", "anything") is None
    assert not any(tmp_path.iterdir())


def test_only_float_arrays_of_two_dimensions_are_stored(tmp_path: Path) -> None:
    store = QuestionStore(tmp_path, "model-a")
    with pytest.raises(ValueError, match="cannot store"):
        store.put("query", "x", np.zeros((2, 2, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="cannot store"):
        store.put("query", "x", np.zeros(3, dtype=np.int64))


def test_the_oldest_rows_go_beyond_the_byte_bound(tmp_path: Path) -> None:
    store = QuestionStore(tmp_path, "model-a", max_bytes=4000)
    for i in range(200):  # 400 bytes each: the bound holds ten
        store.put("query", f"question {i}", np.full(100, i, dtype=np.float32))
    kept = [i for i in range(200) if store.get("query", f"question {i}") is not None]
    assert 0 < len(kept) < 200
    assert store.get("query", "question 199") is not None
    assert min(kept) > 100  # the first ones went first
    # the check runs every 64 writes, so between two checks the store may grow past its bound
    assert len(kept) <= 10 + 64


def test_an_unreadable_store_is_skipped_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = QuestionStore(tmp_path, "model-a")
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"this is not a database" * 100)
    model = TokenModel()
    wrapped = PersistentQuestions(model, store)
    with caplog.at_level(logging.WARNING):
        first = wrapped.embed_query("royalty payments")
        second = wrapped.embed_query("royalty payments")
    assert np.array_equal(first, second) and model.query_calls == 2
    warnings = [r for r in caplog.records if "question store" in r.getMessage()]
    assert len(warnings) == 1


def test_a_second_process_runs_no_model_for_a_repeated_question(tmp_path: Path) -> None:
    cold_model, warm_model = TokenModel(), TokenModel()
    cold, warm = persist_questions(cold_model, tmp_path), persist_questions(warm_model, tmp_path)
    assert isinstance(cold, PersistentTokenQuestions) and isinstance(warm, PersistentTokenQuestions)
    texts = ["table royalty_payment", "table abacus contract parties"]

    cold_query = cold.embed_query("royalty payments for Sony")
    cold_tokens = cold.token_vectors(["royalty payments for Sony"], query=True)
    cold_docs = cold.token_vectors(texts)
    warm_query = warm.embed_query("royalty payments for Sony")
    warm_tokens = warm.token_vectors(["royalty payments for Sony"], query=True)
    warm_docs = warm.token_vectors(texts)

    assert warm_model.query_calls == 0 and warm_model.token_calls == [] and warm.model_calls == 0
    assert cold.model_calls == 3
    assert np.array_equal(cold_query, warm_query) and cold_query.dtype == np.float32
    for a, b in zip(cold_tokens + cold_docs, warm_tokens + warm_docs, strict=True):
        assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b)  # rounded alike
    # a question's tokens and a document's with the same text are kept apart
    as_question, as_document = cold.token_vectors(["x y"], query=True), cold.token_vectors(["x y"])
    assert not np.array_equal(as_question[0], as_document[0])


def test_only_the_missing_texts_reach_the_model(tmp_path: Path) -> None:
    model = TokenModel()
    wrapped = persist_questions(model, tmp_path)
    assert isinstance(wrapped, PersistentTokenQuestions)
    wrapped.token_vectors(["a b", "c d e"])
    out = wrapped.token_vectors(["c d e", "f", "a b"])
    assert model.token_calls == [["a b", "c d e"], ["f"]]
    assert [len(v) for v in out] == [3, 1, 2]


def test_a_model_without_token_vectors_gets_a_wrapper_without_them(tmp_path: Path) -> None:
    wrapped = persist_questions(QueryOnlyModel(), tmp_path)
    assert not isinstance(wrapped, PersistentTokenQuestions)
    assert find_token_vectors(wrapped) is None
    model = TokenModel()
    assert find_token_vectors(persist_questions(model, tmp_path)) is not model  # the wrapper


def test_threads_share_one_store(tmp_path: Path) -> None:
    wrapped = persist_questions(TokenModel(), tmp_path)
    errors: list[BaseException] = []

    def ask(n: int) -> None:
        try:
            for i in range(20):
                wrapped.embed_query(f"question {n} {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(wrapped.store.get("query", f"question {n} 19") is not None for n in range(4))
