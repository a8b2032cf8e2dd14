"""The MCP tools over several indexes (one per source, as the network service runs them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.mcp.coverage import coverage_search
from schemaseek.mcp.served import ServedIndexes
from schemaseek.mcp.tools import SchemaTools, ToolInputError
from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql
from schemaseek.sources.sql import load_sql
from tests.helpers.recording import RecordingProvider


@pytest.fixture(scope="module")
def counting(onnx_provider: OnnxEmbeddingProvider) -> RecordingProvider:
    return RecordingProvider(onnx_provider)


@pytest.fixture(scope="module")
def split(counting: RecordingProvider) -> list[SchemaIndex]:
    """The demo as two indexes: the GraphQL API and the SQL database."""
    indexes = [
        SchemaIndex([source], glossary=demo_glossary(), provider=counting)
        for source in (demo_graphql(), demo_sql())
    ]
    for index in indexes:
        assert not index.build().degraded
    return indexes


@pytest.fixture(scope="module")
def tools(split: list[SchemaIndex]) -> SchemaTools:
    return SchemaTools(ServedIndexes(lambda: split))


def test_search_merges_the_indexes_by_fused_score(
    tools: SchemaTools, split: list[SchemaIndex]
) -> None:
    question = "royalty payments for Sony"
    merged = tools.served.search(question, limit=10, sources=(), kinds=())
    each = [h for index in split for h in index.search(question, limit=10).hits]
    expected = sorted(each, key=lambda h: (-h.score, h.document.source, h.id))[:10]
    assert merged.ids() == [h.id for h in expected]
    assert {h.document.source for h in merged.hits} == {"music_api", "music_db"}
    answer = tools.search_schema(question)
    assert answer["results"][0]["id"] == "Query.abacusContract"
    assert any(e["question"] == question for e in answer["examples"])
    tables = {t for path in answer["join_paths"] for t in path["tables"]}
    assert {"royalty_payment", "abacus_contract"} <= tables


def test_sources_filter_asks_only_the_wanted_index(tools: SchemaTools) -> None:
    answer = tools.search_schema("royalty payments", sources=["music_db"])
    assert answer["results"] and {r["source"] for r in answer["results"]} == {"music_db"}
    with pytest.raises(ToolInputError, match="unknown sources"):
        tools.search_schema("royalty payments", sources=["nope"])


def test_describe_join_path_and_selection_find_the_owning_index(tools: SchemaTools) -> None:
    described = tools.describe(["royalty_payment", "AbacusRoyaltyPayment", "missing"])
    assert [(i["id"], i["source"]) for i in described["items"]] == [
        ("royalty_payment", "music_db"),
        ("AbacusRoyaltyPayment", "music_api"),
    ]
    assert "CREATE TABLE royalty_payment" in described["items"][0]["text"]
    assert described["unknown"] == ["missing"]
    joined = tools.join_path(["royalty_payment", "abacus_contract"])
    assert joined["paths"] and "no_path" not in joined
    assert " ON " in joined["paths"][0]["sql"]
    with pytest.raises(ToolInputError, match="not SQL table ids"):
        tools.join_path(["royalty_payment", "AbacusRoyaltyPayment"])
    selection = tools.graphql_selection("AbacusRoyaltyPayment")
    assert selection["valid"], selection
    sdl = demo_graphql().raw["sdl"]
    assert not validate(build_schema(sdl), parse(selection["query"]))


def test_tables_of_different_sources_are_never_joined(
    split: list[SchemaIndex], tmp_path: Path
) -> None:
    with sqlite3.connect(tmp_path / "ledger.db") as conn:
        conn.execute("CREATE TABLE ledger_entry (id INTEGER PRIMARY KEY, amount REAL)")
    ledger = SchemaIndex([load_sql(f"sqlite:///{tmp_path / 'ledger.db'}", "ledger")], provider=None)
    ledger.build()
    tools = SchemaTools(ServedIndexes(lambda: [*split, ledger]))
    with pytest.raises(ToolInputError, match="different sources"):
        tools.join_path(["royalty_payment", "ledger_entry"])
    assert tools.describe(["ledger_entry"])["items"][0]["source"] == "ledger"


def test_coverage_embeds_once_for_every_index(
    split: list[SchemaIndex], counting: RecordingProvider
) -> None:
    tools = SchemaTools(ServedIndexes(lambda: split))
    counting.reset()
    out = coverage_search(tools, ["money owed to songwriters", "record label partners"])
    assert out["embedding"] == {"batched": 2, "cached": 0, "vectors": True}
    # one batch of both phrases for both indexes, no question embedded again (the only
    # queries are the name bridge's words of phrases the SQL names lack)
    assert counting.batches == [["money owed to songwriters", "record label partners"]]
    assert counting.question_queries() == []
    assert all(p.get("anchor") for p in out["phrases"])


def test_report_usage_teaches_the_index_that_knows_the_ids(tools: SchemaTools) -> None:
    answer = tools.search_schema("who gets paid for streams")
    out = tools.report_usage(answer["query_id"], ["royalty_payment", "unknown_id"])
    assert out["recorded"] == 1 and out["learned"] is True
    assert out["unknown"] == ["unknown_id"]


def test_no_served_index_says_it_is_not_ready() -> None:
    tools = SchemaTools(ServedIndexes(lambda: [None]))
    with pytest.raises(ToolInputError, match="still being built"):
        tools.search_schema("anything")
