"""End-to-end on the embedded demo with the real model: the vocabulary gap, bridged."""

from __future__ import annotations

import pytest

from schemaseek.documents import DocKind
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_questions, demo_sources
from tests.helpers.recording import RecordingProvider

ROOT = [DocKind.GRAPHQL_ROOT_FIELD]


@pytest.fixture(scope="module")
def demo_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=onnx_provider)
    report = index.build()
    assert not report.degraded and report.glossary_missing == ()
    return index


@pytest.fixture(scope="module")
def plain_index(onnx_provider: OnnxEmbeddingProvider) -> SchemaIndex:
    index = SchemaIndex(demo_sources(), provider=onnx_provider)
    index.build()
    return index


def test_demo_has_both_sources_and_enough_tables(demo_index: SchemaIndex) -> None:
    docs = demo_index.documents.values()
    tables = [d for d in docs if d.kind is DocKind.SQL_TABLE]
    assert len(tables) >= 25
    assert {d.source for d in docs} == {"music_api", "music_db"}


def test_royalty_question_finds_abacus_contract_first(demo_index: SchemaIndex) -> None:
    response = demo_index.search("royalty payments for Sony", kinds=ROOT)
    assert response.ids()[0] == "Query.abacusContract"
    assert not response.degraded
    assert response.examples, "the glossary's curated example comes back"
    unfiltered = demo_index.search("royalty payments for Sony", limit=20)
    first_root = next(h for h in unfiltered.hits if h.document.kind in ROOT)
    assert first_root.id == "Query.abacusContract"


def test_vocabulary_gap_is_real_for_keywords_alone(plain_index: SchemaIndex) -> None:
    """Keywords alone do not lead with the answer: only 'payments' matches anything, and it
    matches other root fields first (the type behind the answer is reached from them too)."""
    response = plain_index.search("royalty payments for Sony", kinds=ROOT, mode="keyword")
    assert response.ids()[0] != "Query.abacusContract"


def test_release_distribution_types(demo_index: SchemaIndex) -> None:
    response = demo_index.search(
        "how are releases distributed?", kinds=[DocKind.GRAPHQL_TYPE], limit=5
    )
    assert {"Product", "DistributionDelivery", "DistributionDeliveryType"} <= set(response.ids())


def test_every_sample_question_answers(demo_index: SchemaIndex) -> None:
    for question in demo_questions():
        response = demo_index.search(question, limit=5)
        assert len(response.hits) == 5
        assert all(
            h.explanation.signals or h.explanation.pinned or h.explanation.notes
            for h in response.hits
        )


def test_exact_identifier_is_pinned_without_embedding(onnx_provider: OnnxEmbeddingProvider) -> None:
    counting = RecordingProvider(onnx_provider)
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=counting)
    index.build()
    counting.reset()
    expected = {
        "Query.abacusContract": "Query.abacusContract",
        "query_abacus-contract": "Query.abacusContract",
        "DistributionDeliveryType": "DistributionDeliveryType",
        "royalty_payment": "royalty_payment",
    }
    for query, doc_id in expected.items():
        response = index.search(query)
        assert response.hits[0].id == doc_id
        assert response.hits[0].explanation.pinned
    assert counting.query_calls == 0
    index.search("royalty payments for Sony")
    # the question once; the name bridge may add single words no name holds ("sony")
    assert counting.question_queries() == ["royalty payments for Sony"]
    assert all(len(q.split()) == 1 for q in counting.queries[1:])


def test_explanations_name_signals_and_glossary(demo_index: SchemaIndex) -> None:
    response = demo_index.search("royalty payments for Sony", kinds=ROOT)
    top = response.hits[0].explanation
    assert "glossary" in top.signals and top.glossary_terms
    as_json = response.to_dict()
    assert set(as_json) == {
        "query",
        "query_id",
        "mode",
        "degraded",
        "took_ms",
        "results",
        "examples",
    }
    assert set(as_json["results"][0]) == {"id", "kind", "source", "score", "explanation", "related"}


def test_augmentation_returns_neighbours_and_respects_filter(demo_index: SchemaIndex) -> None:
    response = demo_index.search("royalty payments for Sony", kinds=ROOT)
    related = {r.id for r in response.hits[0].related}
    assert "AbacusContract" not in related  # filter: root fields only
    pinned = demo_index.search("Query.abacusContract", limit=1)
    assert any(r.id == "AbacusContract" and r.relation == "returns" for r in pinned.hits[0].related)
    table = demo_index.search("royalty_payment", limit=1).hits[0]
    assert table.related and {r.relation for r in table.related} <= {"foreignKey", "foreignKey⁻¹"}
