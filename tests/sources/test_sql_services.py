"""All 11 BIRD-dev databases in real PostgreSQL and MariaDB: fetch, documents, FK graph, join
paths with ON clauses, then DDL changes and an incremental refresh that embeds only them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.paths.joins import join_paths
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.diff import diff_sources
from schemaseek.sources.sql import load_sql
from tests.helpers.recording import RecordingProvider
from tests.sources.datasets import catalog_rows, create_statements, execute_all

pytestmark = [pytest.mark.services, pytest.mark.slow]


def check_catalog(
    schema: SourceSchema, rows: list[dict[str, Any]], ns: Callable[[str], str]
) -> None:
    """Every table, column, comment and declared key of the catalog made it through."""
    docs = {d.id: d for d in schema.documents}
    cards = {d.id: d for d in schema.documents if not d.target}
    assert len(cards) == len(rows) == 75
    for row in rows:
        card = cards[f"{ns(row['source'])}.{row['table']}"]
        columns = card.data["columns"]
        assert [c["name"] for c in columns] == [c["name"] for c in row["columns"]]
        assert [c["description"] for c in columns] == [
            (c["description"] or "").strip() for c in row["columns"]
        ]
        facets = [docs[d] for d in card.data["documents"] if not d.endswith("#relationships")]
        assert sorted(c for f in facets for c in f.data["columns"]) == sorted(
            c["name"] for c in row["columns"]
        )
        assert all(f.target == card.id for f in facets)
    expected = {
        (
            f"{ns(row['source'])}.{row['table']}",
            tuple(fk["columns"]),
            f"{ns(row['source'])}.{fk['ref_table_fqn'].split('.', 1)[1]}",
            tuple(fk["ref_columns"]),
        )
        for row in rows
        for fk in row["foreign_keys"]
    }
    found = {
        (e.source, tuple(e.data["columns"]), e.target, tuple(e.data["ref_columns"]))
        for e in schema.edges
    }
    assert found == expected and len(found) == 102
    assert not any(e.data["inferred"] for e in schema.edges)  # declared keys: nothing inferred
    frpm = docs[f"{ns('california_schools')}.frpm#measures"]
    assert any(m.startswith("Free Meal Count (K-12) ") for m in frpm.members)
    card = docs[f"{ns('financial')}.card#relationships"]
    assert card.members == (f"{ns('financial')}.card.disp_id → {ns('financial')}.disp.disp_id",)


def check_join_path(schema: SourceSchema, ns: Callable[[str], str]) -> None:
    fin = ns("financial")
    paths = join_paths(schema.edges, [f"{fin}.card", f"{fin}.client"])
    assert paths and paths[0].tables == (f"{fin}.card", f"{fin}.disp", f"{fin}.client")
    assert paths[0].on == (
        f"{fin}.card.disp_id = {fin}.disp.disp_id",
        f"{fin}.disp.client_id = {fin}.client.client_id",
    )
    assert not paths[0].inferred
    assert join_paths(schema.edges, [f"{fin}.card", f"{ns('superhero')}.superhero"]) == []


def exercise(
    url: str,
    engine: sqlalchemy.Engine,
    ns: Callable[[str], str],
    q: Callable[[str], str],
    provider: RecordingProvider,
) -> None:
    rows = catalog_rows("bird-dev")
    schemas = sorted({ns(r["source"]) for r in rows})
    before = load_sql(url, "bird", schemas)
    check_catalog(before, rows, ns)
    check_join_path(before, ns)

    index = SchemaIndex([before], provider=provider)
    report = index.build()
    assert report.documents == len(before.documents) == report.embedded
    hits = index.search("race results of Formula 1 drivers", limit=5, mode="keyword").hits
    assert hits and all("#" not in h.id for h in hits)

    fin = ns("financial")
    with engine.begin() as conn:
        conn.exec_driver_sql(f"ALTER TABLE {q(fin)}.loan ADD COLUMN interest_rate REAL")
        conn.exec_driver_sql(f"DROP TABLE {q(fin)}.card")
        conn.exec_driver_sql(
            f"CREATE TABLE {q(fin)}.account_note (note_id INTEGER PRIMARY KEY, "
            f"account_id INTEGER REFERENCES {q(fin)}.account (account_id), body TEXT)"
        )
    after = load_sql(url, "bird", schemas)
    diff = diff_sources(before, after)
    assert diff.added_tables == (f"{fin}.account_note",)
    assert diff.removed_tables == (f"{fin}.card",)
    # loan got a column; disp lost card's key to it; account gained account_note's key
    assert diff.changed_tables == (f"{fin}.account", f"{fin}.disp", f"{fin}.loan")
    assert diff.changed == (
        f"{fin}.account#relationships",
        f"{fin}.disp#relationships",
        f"{fin}.loan",
        f"{fin}.loan#measures",
    )
    assert all(d.startswith(f"{fin}.account_note") for d in diff.added)
    assert all(d.startswith(f"{fin}.card") for d in diff.removed)
    provider.reset()
    refreshed = index.refresh(after)
    # the changed documents, and the name bridge's new words (their single-word texts)
    documents = [t for batch in provider.batches for t in batch if len(t.split()) > 1]
    assert refreshed.embedded == diff.embed_count == len(documents)
    assert diff.embed_count == 4 + len(diff.added) < len(after.documents) // 20
    assert f"{fin}.card" not in index.documents and f"{fin}.account_note" in index.documents


def test_bird_in_postgresql(postgres_database: str, onnx_provider: OnnxEmbeddingProvider) -> None:
    rows = catalog_rows("bird-dev")
    engine = sqlalchemy.create_engine(postgres_database)
    try:
        execute_all(engine, create_statements(rows, "postgresql", lambda r: r["source"]))
        exercise(
            postgres_database, engine, str, lambda n: f'"{n}"', RecordingProvider(onnx_provider)
        )
    finally:
        engine.dispose()


def test_bird_in_mariadb(
    mariadb_url: str, mariadb_prefix: str, onnx_provider: OnnxEmbeddingProvider
) -> None:
    rows = catalog_rows("bird-dev")
    engine = sqlalchemy.create_engine(mariadb_url)
    ns: Callable[[str], str] = lambda name: mariadb_prefix + name  # noqa: E731
    try:
        execute_all(engine, create_statements(rows, "mysql", lambda r: ns(r["source"])))
        exercise(mariadb_url, engine, ns, lambda n: f"`{n}`", RecordingProvider(onnx_provider))
    finally:
        engine.dispose()
