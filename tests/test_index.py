"""SchemaIndex behaviour: degraded mode and recovery, input validation, filters, settings."""

from __future__ import annotations

import pytest

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.errors import ConfigError
from schemaseek.index import SchemaIndex
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sources
from tests.conftest import FlakyProvider
from tests.evaluation.fakes import FakeProvider


def test_model_failure_at_build_degrades_then_next_build_heals(
    flaky_provider: FlakyProvider,
) -> None:
    flaky_provider.fail_embed = True
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=flaky_provider)
    report = index.build()
    assert report.degraded and report.embedded == 0
    response = index.search("royalty payments for Sony")
    assert response.degraded
    assert response.hits, "keyword + glossary still answer"
    assert "vector" not in response.hits[0].explanation.signals
    flaky_provider.fail_embed = False
    assert not index.build().degraded
    assert not index.search("royalty payments for Sony").degraded


def test_query_embedding_failure_degrades_that_search_only(flaky_provider: FlakyProvider) -> None:
    index = SchemaIndex([demo_graphql()], provider=flaky_provider)
    index.build()
    flaky_provider.fail_query = True
    failed = index.search("artists under contract")
    assert failed.degraded and failed.hits
    flaky_provider.fail_query = False
    healed = index.search("artists under contract")
    assert not healed.degraded
    assert any("vector" in h.explanation.signals for h in healed.hits)


def test_vector_mode_without_vectors_falls_back_to_keywords() -> None:
    index = SchemaIndex([demo_graphql()], provider=None)
    index.build()
    response = index.search("how releases reach partners", mode="vector")
    assert response.degraded and response.hits


@pytest.mark.parametrize(
    ("query", "kwargs"),
    [
        ("", {}),
        ("   ", {}),
        ("x" * 5000, {}),
        ("ok", {"limit": 0}),
        ("ok", {"limit": 10_000}),
        ("ok", {"mode": "fuzzy"}),
    ],
)
def test_invalid_input_is_rejected_clearly(query: str, kwargs: dict[str, object]) -> None:
    index = SchemaIndex([demo_graphql()], provider=None)
    index.build()
    with pytest.raises(InvalidQueryError):
        index.search(query, **kwargs)  # type: ignore[arg-type]


def test_search_before_build_and_duplicate_ids_are_errors() -> None:
    with pytest.raises(ConfigError, match="not built"):
        SchemaIndex([demo_graphql()], provider=None).search("x")
    with pytest.raises(ConfigError, match="appears in sources"):
        SchemaIndex([demo_graphql(), demo_graphql()], provider=None).build()


def test_include_exclude_and_kind_filters() -> None:
    index = SchemaIndex(demo_sources(), provider=None)
    index.build()
    only_types = index.search("delivery", kinds=[DocKind.GRAPHQL_TYPE], limit=20)
    assert only_types.hits and all(h.document.kind is DocKind.GRAPHQL_TYPE for h in only_types.hits)
    included = index.search("delivery", include=["Distribution*"], limit=20)
    assert included.hits and all(h.id.startswith("Distribution") for h in included.hits)
    excluded = index.search("delivery", exclude=["Distribution*"], limit=20)
    assert not any(h.id.startswith("Distribution") for h in excluded.hits)
    for hit in included.hits:
        assert all(r.id.startswith("Distribution") for r in hit.related)
    sql_only = index.search("delivery", sources=["music_db"], limit=20)
    assert sql_only.hits and all(h.document.source == "music_db" for h in sql_only.hits)


def test_weighted_sum_fusion_is_selectable() -> None:
    settings = SearchSettings(fusion="weighted_sum")
    index = SchemaIndex([demo_graphql()], provider=None, settings=settings)
    index.build()
    scores = [h.score for h in index.search("distribution delivery").hits]
    assert scores == sorted(scores, reverse=True) and scores[0] <= 10


def test_settings_come_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEMASEEK_RRF_K", "40")
    assert SearchSettings().rrf_k == 40
    monkeypatch.setenv("SCHEMASEEK_RRF_K", "0")
    with pytest.raises(ValueError):
        SearchSettings()


def test_part_documents_count_for_their_card() -> None:
    from schemaseek.documents import Document
    from schemaseek.sources.base import SourceSchema

    table = Document("SALES.ORDERS", DocKind.SQL_TABLE, "wh", "ORDERS", "Customer orders.")
    facet = Document(
        "SALES.ORDERS#measures", DocKind.SQL_TABLE, "wh", "ORDERS",
        "measures", ("gross_margin_amount NUMBER",), target="SALES.ORDERS",
    )  # fmt: skip
    other = Document("SALES.MARGINS", DocKind.SQL_TABLE, "wh", "MARGINS", "Margin targets.")
    index = SchemaIndex([SourceSchema("wh", "sql", [table, facet, other], [], "h")], provider=None)
    index.build()
    response = index.search("gross amount", limit=5)
    assert response.ids()[0] == "SALES.ORDERS"
    assert "SALES.ORDERS#measures" not in response.ids()
    assert "keyword" in response.hits[0].explanation.signals
    assert index.search("SALES.ORDERS#measures").hits[0].id != "SALES.ORDERS#measures"


def test_join_propagation_raises_fk_partners_of_the_top_hits() -> None:
    from schemaseek.sources.demo import demo_sql

    on = SchemaIndex([demo_sql()], provider=None)
    on.build()
    off = SchemaIndex([demo_sql()], provider=None, settings=SearchSettings(join_boost=0.0))
    off.build()
    question = "royalty payments made to artists"
    with_joins = on.search(question, limit=10)
    without = off.search(question, limit=10).ids()
    partners = [
        h for h in with_joins.hits if any(n.startswith("joins ") for n in h.explanation.notes)
    ]
    assert partners, "some FK partner of the top hits was raised"
    for hit in partners:
        anchor = hit.explanation.notes[0].split()[1]
        assert anchor in without[:5]
        assert any(
            other == hit.id and relation == "foreignKey"
            for other, relation, _ in on.graph.neighbors(anchor)
        )
    raised = [
        h.id
        for h in partners
        if h.id not in without or with_joins.ids().index(h.id) < without.index(h.id)
    ]
    assert raised, "propagation moved at least one partner up"


def test_column_questions_map_facet_hits_to_member_columns() -> None:
    from schemaseek.sources.demo import demo_sql

    index = SchemaIndex([demo_sql()], provider=None)
    index.build()
    response = index.search("payment amount and currency", kinds=[DocKind.SQL_COLUMN], limit=10)
    assert response.hits
    for hit in response.hits:
        doc = hit.document
        assert doc.kind is DocKind.SQL_COLUMN and hit.id == f"{doc.target}.{doc.name}"
        table = index.get(doc.target)
        assert table is not None
        assert doc.name in {c["name"] for c in table.data["columns"]}
        assert hit.explanation.notes[0].startswith(f"column of {doc.target}")
    assert any(h.document.name in {"amount", "currency_code"} for h in response.hits[:5])
    tables = index.search("payment amount and currency", kinds=[DocKind.SQL_TABLE])
    assert all(h.document.kind is DocKind.SQL_TABLE for h in tables.hits)


def _shop_source(name: str, tables: dict[str, str]) -> SourceSchema:
    docs = [
        Document(f"{name}.{table}", DocKind.SQL_TABLE, name, table, description)
        for table, description in tables.items()
    ]
    return SourceSchema(name, "sql", docs, [], stable_hash([name, *tables]))


def test_a_source_scoped_search_ranks_every_vector_of_that_source(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    """With many sources in one index, the whole index's nearest vectors can all belong to
    other sources; a search scoped to one source must still rank that source's documents."""
    shops = {
        "customer_orders": "Orders placed by customers.",
        "order_lines": "Items of each customer order.",
        "customers": "People who buy from the shop.",
        "payments": "Payments customers made for orders.",
    }
    sources = [_shop_source(f"shop_{i}", shops) for i in range(50)]
    sources.append(_shop_source("zoo", {"animal_feeding": "When each animal was fed, and what."}))
    index = SchemaIndex(sources, provider=onnx_provider)
    index.build()
    whole = index.search("customer orders", limit=10)
    assert all(h.document.source.startswith("shop_") for h in whole.hits)
    scoped = index.search("customer orders", limit=10, sources=["zoo"])
    assert [h.id for h in scoped.hits] == ["zoo.animal_feeding"]
    assert "vector" in scoped.hits[0].explanation.signals


@pytest.mark.parametrize("kinds", [(), ("sql_table",)])
def test_pages_of_a_search_rank_alike_whatever_the_limit(kinds: tuple[str, ...]) -> None:
    from schemaseek.sources.demo import demo_glossary, demo_sources

    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=FakeProvider())
    index.build()
    question = "royalty payments for Sony"
    whole = index.search(question, limit=30, kinds=kinds)
    for limit in (3, 7, 13, 21):
        page = index.search(question, limit=limit, kinds=kinds)
        assert page.ids() == whole.ids()[:limit]
        assert [h.score for h in page.hits] == pytest.approx([h.score for h in whole.hits][:limit])
