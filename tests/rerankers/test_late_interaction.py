"""Late-interaction (MaxSim) reranking over the real all-MiniLM-L6-v2 token vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.errors import ConfigError
from schemaseek.index import SchemaIndex
from schemaseek.rerankers import LateInteractionReranker, maxsim
from schemaseek.rerankers.late_interaction import Matrix, mix_with_fused, names_text
from schemaseek.sources.demo import demo_glossary, demo_sources
from tests.evaluation.fakes import FakeProvider


def table(doc_id: str, description: str, *members: str) -> Document:
    return Document(doc_id, DocKind.SQL_TABLE, "shop", doc_id, description, tuple(members))


CANDIDATES = [
    table("weather_readings", "daily temperature and rainfall per weather station"),
    table("royalty_payment", "payments of royalties to artists and labels", "amount", "artist"),
    table("customers", "one row per customer with billing segment and country"),
    table("orders", "orders placed by customers with order date and total", "order_date"),
    table("football_matches", "results of league football games", "home_team", "score"),
]


class CountingTokens:
    """Wraps the real provider's ``token_vectors`` and records every model run."""

    def __init__(self, inner: OnnxEmbeddingProvider) -> None:
        self.inner = inner
        self.calls: list[tuple[int, bool]] = []

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Matrix]:
        self.calls.append((len(texts), query))
        return self.inner.token_vectors(texts, query=query, bulk=bulk)

    def document_runs(self) -> int:
        return sum(1 for _, query in self.calls if not query)


def test_token_vectors_drop_special_tokens(onnx_provider: OnnxEmbeddingProvider) -> None:
    texts = ["royalty payments to artists", "", "x"]
    vectors = onnx_provider.token_vectors(texts)
    assert [v.shape for v in vectors] == [(4, 384), (0, 384), (1, 384)]
    assert all(v.dtype == np.float32 for v in vectors)
    bulk = onnx_provider.token_vectors(texts, bulk=True)
    for one, other in zip(vectors, bulk, strict=True):
        np.testing.assert_allclose(one, other, atol=1e-4)
    alone = onnx_provider.token_vectors(["x"])[0]  # padding in a batch changes nothing
    np.testing.assert_allclose(alone, vectors[2], atol=1e-4)
    assert onnx_provider.token_vectors([]) == []


def test_token_vectors_reuse_the_question_embed_query_ran(
    onnx_provider: OnnxEmbeddingProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    forward = onnx_provider._forward

    def counted(session: object, encodings: Sequence[object]) -> object:
        runs.append(len(encodings))
        return forward(session, encodings)

    monkeypatch.setattr(onnx_provider, "_forward", counted)
    question = "royalties paid to artists last year"
    onnx_provider.embed_query(question)
    reused = onnx_provider.token_vectors([question], query=True)[0]
    assert runs == [1]  # the question's model run is shared with the vector signal
    fresh = onnx_provider.token_vectors([question])[0]
    assert runs == [1, 1]
    np.testing.assert_allclose(reused, fresh, atol=1e-5)
    onnx_provider.token_vectors(["another question"], query=True)
    assert runs == [1, 1, 1]


@pytest.mark.parametrize("query_tokens", [5, 400])  # 400 × 16 dims: products in many blocks
def test_maxsim_equals_brute_force(query_tokens: int) -> None:
    rng = np.random.default_rng(3)

    def unit(n: int) -> Matrix:
        m = rng.normal(size=(n, 16)).astype(np.float32)
        normalised: Matrix = m / np.linalg.norm(m, axis=1, keepdims=True)
        return normalised

    query = unit(query_tokens)
    documents = [unit(7), unit(0), unit(1), unit(150), unit(12)]
    expected = [
        float(np.mean([max(float(q @ d) for d in doc) for q in query])) if len(doc) else 0.0
        for doc in documents
    ]
    np.testing.assert_allclose(maxsim(query, documents), expected, atol=1e-5)
    halves = [d.astype(np.float16) for d in documents]  # the cache's storage type
    np.testing.assert_allclose(maxsim(query, halves), expected, atol=2e-3)
    assert maxsim(unit(0), documents).tolist() == [0.0] * 5


def test_mixing_with_the_fused_order() -> None:
    scores = np.asarray([0.1, 0.5, 0.3], dtype=np.float32)
    assert mix_with_fused(scores, 1.0) is scores
    np.testing.assert_allclose(mix_with_fused(scores, 0.0), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(mix_with_fused(scores, 0.5), [0.5, 0.75, 0.25], atol=1e-6)


def test_mixing_with_the_fused_scores_keeps_their_margins() -> None:
    scores = np.asarray([0.1, 0.5, 0.3], dtype=np.float32)
    fused = np.asarray([2.0, 1.9, 0.4], dtype=np.float32)
    np.testing.assert_allclose(mix_with_fused(scores, 0.0, fused), [1.0, 0.95, 0.2], atol=1e-6)
    # MaxSim lifts the second candidate past a first that led the fusion by a hair only
    mixed = mix_with_fused(scores, 0.4, fused)
    np.testing.assert_allclose(mixed, [0.6, 0.97, 0.32], atol=1e-6)
    assert mix_with_fused(scores, 1.0, fused) is scores


@pytest.mark.parametrize(
    ("question", "relevant", "irrelevant"),
    [
        ("how much royalty did we pay each artist", "royalty_payment", "weather_readings"),
        ("rainfall measured at each station", "weather_readings", "royalty_payment"),
        ("which customers live in France", "customers", "football_matches"),
        ("who won the league game", "football_matches", "orders"),
    ],
)
def test_relevant_document_outranks_irrelevant(
    onnx_provider: OnnxEmbeddingProvider, question: str, relevant: str, irrelevant: str
) -> None:
    pure = LateInteractionReranker(onnx_provider, alpha=1.0)  # MaxSim alone
    ranked = [d for d, _ in pure.rerank(question, CANDIDATES)]
    assert ranked.index(relevant) < ranked.index(irrelevant)
    assert ranked[0] == relevant


def test_second_call_is_served_from_the_cache(onnx_provider: OnnxEmbeddingProvider) -> None:
    counting = CountingTokens(onnx_provider)
    reranker = LateInteractionReranker(counting, batch_size=2)
    first = reranker.rerank("royalties paid to artists", CANDIDATES)
    assert counting.document_runs() == 3  # five candidates, two per run
    assert reranker.stats.misses == 5
    assert reranker.stats.hits == 0
    second = reranker.rerank("royalties paid to artists", CANDIDATES)
    assert counting.document_runs() == 3  # no new document run
    assert [n for n, query in counting.calls if query] == [1]  # nor a question run
    assert reranker.stats.hits == 5
    assert [d for d, _ in second] == [d for d, _ in first]
    for (_, a), (_, b) in zip(first, second, strict=True):
        assert a == pytest.approx(b, abs=1e-6)


def test_cache_is_bounded_and_stores_float16(onnx_provider: OnnxEmbeddingProvider) -> None:
    reranker = LateInteractionReranker(onnx_provider, cache_documents=2)
    reranker.rerank("orders of customers", CANDIDATES)
    stats = reranker.stats
    assert stats.documents == 2
    tokens = sum(
        len(v) for v in onnx_provider.token_vectors([d.embedding_text() for d in CANDIDATES])
    )
    assert 0 < stats.bytes < tokens * 384 * 2
    by_bytes = LateInteractionReranker(onnx_provider, cache_bytes=20_000)
    by_bytes.rerank("orders of customers", CANDIDATES)
    assert 0 < by_bytes.stats.bytes <= 20_000
    assert by_bytes.stats.documents < len(CANDIDATES)
    stored = next(iter(by_bytes._cache.values()))
    assert stored.dtype == np.float16
    by_bytes.clear()
    assert by_bytes.stats.documents == by_bytes.stats.bytes == 0


def test_prepare_fills_the_cache(onnx_provider: OnnxEmbeddingProvider) -> None:
    counting = CountingTokens(onnx_provider)
    reranker = LateInteractionReranker(counting)
    assert reranker.prepare(CANDIDATES) == len(CANDIDATES)
    assert reranker.prepare(CANDIDATES) == 0
    runs = counting.document_runs()
    reranker.rerank("orders", CANDIDATES)
    assert counting.document_runs() == runs


def test_head_and_alpha(onnx_provider: OnnxEmbeddingProvider) -> None:
    fused = [d.id for d in CANDIDATES]
    only_order = LateInteractionReranker(onnx_provider, alpha=0.0)
    assert [d for d, _ in only_order.rerank("rainfall", CANDIDATES[::-1])] == fused[::-1]
    head = LateInteractionReranker(onnx_provider, max_candidates=2)
    ranked = [d for d, _ in head.rerank("league football results", CANDIDATES)]
    assert set(ranked[:2]) == set(fused[:2])
    assert ranked[2:] == fused[2:]
    assert LateInteractionReranker(onnx_provider).rerank("anything", []) == []
    with pytest.raises(ConfigError):
        LateInteractionReranker(onnx_provider, alpha=1.5)
    with pytest.raises(ConfigError):
        LateInteractionReranker(onnx_provider, max_candidates=0)


@pytest.fixture(scope="module")
def reranked_demo(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    index = SchemaIndex(
        demo_sources(),
        glossary=demo_glossary(),
        provider=FakeProvider(),
        reranker=LateInteractionReranker(onnx_provider, max_candidates=20),
    )
    index.build()
    return index


@pytest.mark.parametrize(
    "question", ["royalty payments for Sony", "how many streams did Spotify report last month?"]
)
def test_demo_pipeline_marks_hits_reranked(reranked_demo: SchemaIndex, question: str) -> None:
    response = reranked_demo.search(question, limit=10)
    assert not response.degraded
    assert len(response.hits) == 10
    assert all(hit.explanation.reranked for hit in response.hits)
    assert all(hit.to_dict()["explanation"]["reranked"] for hit in response.hits)


class CountingModel:
    """The real model's query entry points, each call counted (a call is one model run unless
    the model hands back what it just computed)."""

    def __init__(self, inner: OnnxEmbeddingProvider) -> None:
        self.inner = inner
        self.runs = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str], progress: object = None) -> Matrix:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        self.runs += 1
        return self.inner.embed_query(text)

    def token_vectors(
        self, texts: Sequence[str], *, query: bool = False, bulk: bool = False
    ) -> list[Matrix]:
        self.runs += 1
        return self.inner.token_vectors(texts, query=query, bulk=bulk)


def test_a_repeated_search_with_the_reranker_runs_no_model(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    """Regression: the question's token vectors were kept in one slot beside the model, so a
    search served from the query cache still ran the model for the reranker."""
    model = CountingModel(onnx_provider)
    index = SchemaIndex(
        demo_sources(),
        provider=FakeProvider(),
        reranker=LateInteractionReranker(model, max_candidates=10),
    )
    index.build()
    questions = ["royalty payments for Sony", "which artists are signed to a label?"]
    for question in questions:
        index.search(question, limit=5)
    before = model.runs
    for question in questions * 2:
        assert index.search(question, limit=5).hits[0].explanation.reranked
    assert model.runs == before


def test_index_takes_the_reranker_from_settings(onnx_provider: OnnxEmbeddingProvider) -> None:
    settings = SearchSettings(reranker="late-interaction", rerank_candidates=12, rerank_alpha=0.7)
    index = SchemaIndex(demo_sources(), provider=onnx_provider, settings=settings)
    reranker = index.reranker
    assert isinstance(reranker, LateInteractionReranker)
    assert reranker.provider is onnx_provider  # the wrapped embedding model is reused
    assert (reranker.max_candidates, reranker.alpha) == (12, 0.7)
    assert SchemaIndex(provider=None).reranker is None


def test_names_text_drops_types_and_member_descriptions() -> None:
    doc = Document(
        "shop.orders", DocKind.SQL_TABLE, "shop", "orders", "orders placed by customers",
        ("order_id INTEGER", "total NUMBER(38,2) — gross amount", "placed_at"),
    )  # fmt: skip
    assert names_text(doc) == (
        "table orders. orders placed by customers. fields: order_id, total, placed_at"
    )
    field = Document("Repo.owner", DocKind.GRAPHQL_FIELD, "gh", "owner", "", ("User!",))
    assert names_text(field) == "field owner. fields: User!"


def test_fused_scores_carry_into_the_mix_and_the_tail(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    reranker = LateInteractionReranker(onnx_provider, alpha=0.4, max_candidates=3)
    fused = [2.0, 1.8, 1.6, 1.0, 0.2]
    ranked = reranker.rerank("payments of royalties to artists", CANDIDATES, fused)
    assert ranked[0][0] == "royalty_payment"  # MaxSim lifts it past a hair's fused lead
    scores = dict(ranked)
    # on the fused scale: the best MaxSim with the best prior would score the best fused 2.0
    assert scores["royalty_payment"] == pytest.approx(2.0 * (0.4 * 1.0 + 0.6 * 0.9))
    # past the head, candidates keep their fused margins, under the head's lowest score
    assert [d for d, _ in ranked[3:]] == ["orders", "football_matches"]
    assert scores["orders"] == pytest.approx(0.6 * 1.0)
    assert scores["football_matches"] == pytest.approx(0.6 * 0.2)
    assert scores["orders"] < min(scores[d] for d, _ in ranked[:3])
