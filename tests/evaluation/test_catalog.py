"""The JSON Lines catalog source: documents, members, edges, xz, errors, the real datasets."""

from __future__ import annotations

import json
import lzma
import time
from pathlib import Path
from typing import Any

import pytest

from schemaseek.documents import DocKind
from schemaseek.errors import SourceError
from schemaseek.sources.catalog import iter_jsonl, load_catalog
from tests.evaluation.conftest import DATASETS, needs_datasets

ROWS: list[dict[str, Any]] = [
    {
        "source": "shop",
        "database": "shop",
        "schema": None,
        "table": "customer",
        "fqn": "shop.customer",
        "description": "People who buy",
        "columns": [
            {"name": "id", "type": "integer", "description": None},
            {"name": "name", "type": None, "description": "display name"},
        ],
        "foreign_keys": [],
    },
    {
        "source": "shop",
        "database": "shop",
        "schema": None,
        "table": "orders",
        "fqn": "shop.orders",
        "description": None,
        "columns": [{"name": "customer_id", "type": "integer", "description": "buyer"}],
        "foreign_keys": [
            {"columns": ["customer_id"], "ref_table_fqn": "shop.customer", "ref_columns": ["id"]},
            {"columns": ["x"], "ref_table_fqn": "other.thing", "ref_columns": ["y"]},
            {"columns": ["z"], "ref_table_fqn": None, "ref_columns": []},
        ],
    },
    {
        "source": "hr",
        "database": "HR",
        "schema": "PUBLIC",
        "table": "EMPLOYEE",
        "fqn": "HR.PUBLIC.EMPLOYEE",
        "description": "Staff",
        "columns": [],
        "foreign_keys": [],
        "extra": "ignored",
    },
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_one_source_per_db_and_one_document_per_table(tmp_path: Path) -> None:
    schemas = load_catalog(write_jsonl(tmp_path / "catalog.jsonl", ROWS))
    assert [s.name for s in schemas] == ["shop", "hr"]
    shop = schemas[0]
    assert shop.kind == "sql"
    customer, orders = shop.documents
    assert customer.id == "shop.customer"
    assert customer.kind is DocKind.SQL_TABLE
    assert customer.source == "shop"
    assert customer.name == "customer"
    assert customer.description == "People who buy"
    assert customer.members == ("id integer", "name — display name")
    assert orders.description == ""
    assert orders.members == ("customer_id integer — buyer",)
    assert customer.data == {
        "columns": [
            {"name": "id", "type": "integer", "description": ""},
            {"name": "name", "type": "", "description": "display name"},
        ],
        "schema": None,
        "database": "shop",
    }
    assert schemas[1].documents[0].data["schema"] == "PUBLIC"
    assert schemas[1].documents[0].members == ()


def test_foreign_keys_within_the_source_become_edges(tmp_path: Path) -> None:
    shop, hr = load_catalog(write_jsonl(tmp_path / "catalog.jsonl", ROWS))
    assert len(shop.edges) == 1
    edge = shop.edges[0]
    assert (edge.source, edge.target, edge.relation) == (
        "shop.orders",
        "shop.customer",
        "foreignKey",
    )
    assert edge.data["columns"] == ["customer_id"]
    assert edge.data["ref_columns"] == ["id"]
    assert edge.data["inferred"] is False
    assert hr.edges == []


def test_source_filter_and_hash(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "catalog.jsonl", ROWS)
    only = load_catalog(path, sources=["hr"])
    assert [s.name for s in only] == ["hr"]
    again = load_catalog(write_jsonl(tmp_path / "again.jsonl", [ROWS[1], ROWS[0], ROWS[2]]))
    assert again[0].schema_hash == load_catalog(path)[0].schema_hash  # row order never matters
    changed = [dict(ROWS[0], description="Buyers"), *ROWS[1:]]
    assert load_catalog(write_jsonl(tmp_path / "c.jsonl", changed))[0].schema_hash != (
        again[0].schema_hash
    )


def test_xz_catalog_reads_like_plain(tmp_path: Path) -> None:
    path = tmp_path / "catalog_full.jsonl.xz"
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row) + "\n")
    plain = load_catalog(write_jsonl(tmp_path / "catalog.jsonl", ROWS))
    packed = load_catalog(path)
    assert [d.id for s in packed for d in s.documents] == [d.id for s in plain for d in s.documents]
    assert packed[0].schema_hash == plain[0].schema_hash


def test_missing_file_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"nope\.jsonl: file not found"):
        load_catalog(tmp_path / "nope.jsonl")


def test_garbled_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "catalog.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"catalog\.jsonl, line 3: invalid JSON"):
        load_catalog(path)


def test_row_without_keys_names_the_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "catalog.jsonl", [ROWS[0], {"source": "x", "table": "t"}])
    with pytest.raises(SourceError, match=r"line 2: malformed catalog row: KeyError\('fqn'\)"):
        load_catalog(path)
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(SourceError, match="line 1: expected a JSON object"):
        load_catalog(path)


def test_repeated_table_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "catalog.jsonl", [ROWS[0], ROWS[0]])
    with pytest.raises(SourceError, match=r"line 2: table 'shop\.customer' repeats in 'shop'"):
        load_catalog(path)


def test_corrupt_xz_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "catalog.jsonl.xz"
    path.write_bytes(b"\xfd7zXZ\x00 definitely not xz data")
    with pytest.raises(SourceError, match=r"catalog\.jsonl\.xz, line 1: cannot read the file"):
        load_catalog(path)


def test_iter_jsonl_yields_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (3, {"a": 2})]


@needs_datasets
def test_spider1_dev_catalog() -> None:
    schemas = load_catalog(DATASETS / "spider1-dev" / "catalog.jsonl")
    assert len(schemas) == 20
    assert sum(len(s.documents) for s in schemas) == 81
    edges = [e for s in schemas for e in s.edges]
    assert edges, "declared foreign keys become edges"
    for schema in schemas:
        ids = {d.id for d in schema.documents}
        assert all(e.source in ids and e.target in ids for e in schema.edges)
        assert all(d.source == schema.name for d in schema.documents)
    singer = next(s for s in schemas if s.name == "concert_singer")
    assert "concert_singer.singer" in {d.id for d in singer.documents}


@needs_datasets
@pytest.mark.slow
def test_spider2_snow_catalog_loads_fast() -> None:
    started = time.perf_counter()
    schemas = load_catalog(DATASETS / "spider2-snow" / "catalog.jsonl")
    took = time.perf_counter() - started
    assert len(schemas) == 147
    assert sum(len(s.documents) for s in schemas) == 6858
    assert took < 10.0, f"loading took {took:.1f} s"
