"""Typed shapes: edge relations as an enum, table records and document data as TypedDicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemaseek.documents import DocKind, Edge, Relation
from schemaseek.sources.catalog import load_catalog
from schemaseek.sources.demo import demo_graphql, demo_sql
from schemaseek.sources.records import (
    ArgumentRecord,
    ColumnRecord,
    FacetData,
    ForeignKeyRecord,
    GraphQLFieldData,
    GraphQLTypeData,
    RelationshipRecord,
    RelationshipsData,
    TableData,
    TableRecord,
)


def test_a_plain_string_becomes_the_relation_and_serialises_as_before() -> None:
    loaded = Edge("orders", "customer", "foreignKey", {"columns": ["customer_id"]})  # type: ignore[arg-type]
    assert loaded.relation is Relation.FOREIGN_KEY
    assert loaded == Edge("orders", "customer", Relation.FOREIGN_KEY)
    assert hash(loaded) == hash(Edge("orders", "customer", Relation.FOREIGN_KEY))
    plain: str = "foreignKey"
    assert loaded.relation == plain and f"{loaded.relation}⁻¹" == "foreignKey⁻¹"
    assert json.dumps([loaded.source, loaded.relation]) == '["orders", "foreignKey"]'
    assert [r.value for r in Relation] == [
        "returns",
        "hasField",
        "member",
        "implements",
        "unionMember",
        "foreignKey",
    ]


def test_an_unknown_relation_is_rejected_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown edge relation 'references'; known: returns, "):
        Edge("a", "b", "references")  # type: ignore[arg-type]


def test_sources_only_produce_enum_relations() -> None:
    for schema in (demo_graphql(), demo_sql()):
        assert schema.edges
        assert all(type(e.relation) is Relation for e in schema.edges)
    relations = {e.relation for e in demo_graphql().edges}
    assert {Relation.RETURNS, Relation.HAS_FIELD, Relation.MEMBER} <= relations
    assert {e.relation for e in demo_sql().edges} == {Relation.FOREIGN_KEY}


def _keys_fit(data: dict[str, Any], shape: Any) -> bool:
    """Every required key present, no key the TypedDict does not name."""
    keys = set(data)
    return bool(
        shape.__required_keys__ <= keys <= shape.__required_keys__ | shape.__optional_keys__
    )


def _table_fits(table: dict[str, Any]) -> bool:
    return (
        _keys_fit(table, TableRecord)
        and all(_keys_fit(c, ColumnRecord) for c in table["columns"])
        and all(_keys_fit(fk, ForeignKeyRecord) for fk in table["foreign_keys"])
    )


def test_reflected_tables_and_sql_documents_have_the_recorded_shapes() -> None:
    schema = demo_sql()
    assert schema.raw["tables"] and all(_table_fits(t) for t in schema.raw["tables"])
    shapes = 0
    for doc in schema.documents:
        if doc.kind is DocKind.SQL_COLUMN:
            assert _keys_fit(doc.data, FacetData)
        elif doc.id.endswith("#relationships"):
            assert _keys_fit(doc.data, RelationshipsData)
            assert all(_keys_fit(r, RelationshipRecord) for r in doc.data["relationships"])
        else:
            assert set(doc.data) == set(TableData.__annotations__)  # bounded: every key
        shapes += 1
    assert shapes == len(schema.documents)


def test_catalog_tables_have_the_recorded_shape(tmp_path: Path) -> None:
    row = {
        "source": "shop",
        "database": "shop",
        "schema": "main",
        "table": "orders",
        "fqn": "shop.main.orders",
        "columns": [{"name": "id", "type": "INT"}],
        "foreign_keys": [{"columns": ["id"], "ref_table_fqn": None, "ref_columns": ["id"]}],
    }
    path = tmp_path / "catalog.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (schema,) = load_catalog(path)
    assert all(_table_fits(t) for t in schema.raw["tables"])
    assert all(_keys_fit(d.data, TableData) for d in schema.documents)


def test_graphql_documents_have_the_recorded_shapes() -> None:
    kinds = set()
    for doc in demo_graphql().documents:
        kinds.add(doc.kind)
        if doc.kind is DocKind.GRAPHQL_TYPE:
            assert _keys_fit(doc.data, GraphQLTypeData)
        else:
            assert _keys_fit(doc.data, GraphQLFieldData)
            assert all(set(a) == set(ArgumentRecord.__annotations__) for a in doc.data["args"])
    assert kinds == {DocKind.GRAPHQL_TYPE, DocKind.GRAPHQL_FIELD, DocKind.GRAPHQL_ROOT_FIELD}
