"""Bounded table documents: identity, facets chunked at 64, relationships; facet rules."""

from __future__ import annotations

import pytest

from schemaseek.documents import DocKind, Edge, Relation
from schemaseek.sources.bounded import (
    CHUNK,
    FACETS,
    bounded_documents,
    classify_column,
    table_documents,
)
from schemaseek.sources.records import ColumnRecord, TableRecord
from tests.helpers.records import table_record


@pytest.mark.parametrize(
    ("name", "type_", "facet"),
    [
        ("customer_id", "INTEGER", "identifiers"),
        ("CustomerID", "integer", "identifiers"),
        ("zip_code", "TEXT", "identifiers"),
        ("row_uuid", "", "identifiers"),
        ("token", "UUID", "identifiers"),
        ("created_at", "TEXT", "time"),
        ("Academic Year", "text", "time"),
        ("shipped", "TIMESTAMP_NTZ", "time"),
        ("status", "VARCHAR(20)", "categorical"),
        ("is_active", "INTEGER", "categorical"),
        ("Segment", "text", "categorical"),
        ("paid", "BOOLEAN", "categorical"),
        ("amount", "NUMBER(38,2)", "measures"),
        ("Free Meal Count (K-12)", "real", "measures"),
        ("unit_price", "", "measures"),
        ("full_name", "VARCHAR", "text"),
        ("notes", "TEXT", "text"),
        ("payload", "VARIANT", "other"),
        ("blob", "", "other"),
    ],
)
def test_facet_rules(name: str, type_: str, facet: str) -> None:
    assert classify_column(name, type_) == facet


def test_key_columns_are_identifiers_whatever_their_name() -> None:
    assert classify_column("owner", "TEXT", key=True) == "identifiers"


def wide_table(columns: int = 300) -> TableRecord:
    kinds = ["NUMBER", "NUMBER", "TEXT", "DATE", "VARIANT", "BOOLEAN"]
    cols: list[ColumnRecord] = [
        {"name": f"c{i}", "type": kinds[i % len(kinds)], "description": f"column {i}"}
        for i in range(columns)
    ]
    cols[0] = {"name": "wide_id", "type": "NUMBER", "description": "key"}
    return table_record("DB.S.WIDE", description="A wide table.", columns=cols)


def test_300_columns_yield_a_handful_of_documents() -> None:
    docs = table_documents(wide_table(), "wh")
    assert len(docs) <= 12
    identity, *parts = docs
    assert identity.id == "DB.S.WIDE" and identity.kind is DocKind.SQL_TABLE
    assert identity.description == "A wide table." and not identity.target
    assert len(identity.members) == 64 and identity.members[0] == "wide_id"
    assert identity.data["documents"] == [d.id for d in parts]
    assert all(d.target == "DB.S.WIDE" and d.kind is DocKind.SQL_COLUMN for d in parts)
    members = [c for d in parts for c in d.data["columns"]]
    assert sorted(members) == sorted(c["name"] for c in wide_table()["columns"])
    assert all(len(d.members) <= CHUNK for d in parts)
    ids = {d.id for d in parts}
    assert {"DB.S.WIDE#measures:1", "DB.S.WIDE#measures:2", "DB.S.WIDE#identifiers"} <= ids
    measures = next(d for d in parts if d.id == "DB.S.WIDE#measures:1")
    assert measures.data["facet"] == "measures" and measures.data["chunk"] == 1
    assert measures.members[0] == "c1 NUMBER — column 1" and len(measures.members) == 64
    assert measures.description == "Measure columns of WIDE"
    assert {d.data["facet"] for d in parts} <= set(FACETS)


def test_relationships_list_one_hop_keys_both_ways() -> None:
    tables = [
        table_record("s.orders", columns=["customer_id"]),
        table_record("s.customers", columns=["customer_id"]),
        table_record("s.notes", columns=[{"name": "body", "type": "TEXT"}]),
    ]
    declared = Edge(
        "s.orders",
        "s.customers",
        Relation.FOREIGN_KEY,
        {"columns": ["customer_id"], "ref_columns": ["customer_id"], "inferred": False},
    )
    guessed = Edge(
        "s.notes",
        "s.orders",
        Relation.FOREIGN_KEY,
        {"columns": ["order_id"], "ref_columns": ["id"], "inferred": True},
    )
    docs = {d.id: d for d in bounded_documents(tables, "shop", [declared, guessed])}
    orders = docs["s.orders#relationships"]
    assert orders.target == "s.orders" and orders.kind is DocKind.SQL_TABLE
    assert orders.members == (
        "s.orders.customer_id → s.customers.customer_id",
        "s.notes.order_id → s.orders.id (inferred)",
    )
    assert [r["direction"] for r in orders.data["relationships"]] == ["out", "in"]
    assert docs["s.customers#relationships"].members == (
        "s.orders.customer_id → s.customers.customer_id",
    )
    # the inferred key column counts as an identifier of notes
    assert "s.notes#text" in docs and "s.notes#relationships" in docs


def test_table_without_keys_or_columns() -> None:
    docs = table_documents(table_record("t"), "x")
    assert [d.id for d in docs] == ["t"] and docs[0].members == ()
