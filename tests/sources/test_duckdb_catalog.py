"""DuckDB through the SQL fetcher: its own catalog functions, attached databases, keys, comments,
and a slice of the Spider 2.0-Snow benchmark (the bench script itself, on 3 databases)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import sqlalchemy
from sqlalchemy.pool import StaticPool

from schemaseek.sources.sql import load_sql
from tests.sources.datasets import ROOT, datasets_dir


def bench_module() -> ModuleType:
    path = ROOT / "bench" / "spider2_snow_index.py"
    spec = importlib.util.spec_from_file_location("spider2_snow_index", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_duckdb_tables_views_keys_comments(tmp_path: Path) -> None:
    pytest.importorskip("duckdb_engine")
    engine = sqlalchemy.create_engine("duckdb:///:memory:", poolclass=StaticPool)
    with engine.connect() as conn:
        for statement in [
            "CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name VARCHAR)",
            "CREATE TABLE album (album_id INTEGER PRIMARY KEY, "
            "artist_id INTEGER REFERENCES artist (artist_id), title VARCHAR, price DECIMAL(8,2))",
            "COMMENT ON TABLE album IS 'Records for sale.'",
            "COMMENT ON COLUMN album.price IS 'List price.'",
            "CREATE VIEW cheap AS SELECT * FROM album WHERE price < 5",
            "CREATE TABLE tmp_load (x INTEGER)",
        ]:
            conn.exec_driver_sql(statement)
        conn.commit()
        conn.exec_driver_sql("ATTACH ':memory:' AS lake")
        conn.commit()
        conn.exec_driver_sql("CREATE SCHEMA lake.raw")
        conn.exec_driver_sql("CREATE TABLE lake.raw.plays (play_id INTEGER, album_id INTEGER)")
        conn.commit()
    schema = load_sql("duckdb://", "music", ["main", "lake.raw"], engine=engine)
    tables = {t["id"]: t for t in schema.raw["tables"]}
    assert set(tables) == {"main.artist", "main.album", "main.cheap", "lake.raw.plays"}
    album = tables["main.album"]
    assert album["description"] == "Records for sale." and album["primary_key"] == ["album_id"]
    assert album["database"] == "memory" and tables["lake.raw.plays"]["database"] == "lake"
    assert tables["main.cheap"]["is_view"] is True
    price = next(c for c in album["columns"] if c["name"] == "price")
    assert price == {
        "name": "price",
        "type": "DECIMAL(8,2)",
        "description": "List price.",
        "primary_key": False,
        "nullable": True,
    }
    assert [(e.source, e.target, e.data["inferred"]) for e in schema.edges] == [
        ("main.album", "main.artist", False)
    ]  # declared keys exist, so nothing is inferred (infer="auto")
    both = load_sql("duckdb://", "music", ["main", "lake.raw"], engine=engine, infer=True)
    assert ("lake.raw.plays", "main.album", True) in {
        (e.source, e.target, e.data["inferred"]) for e in both.edges
    }
    engine.dispose()


@pytest.mark.slow
def test_spider2_snow_slice_through_the_bench() -> None:
    pytest.importorskip("duckdb_engine")
    bench = bench_module()
    rows = bench.read_catalog(datasets_dir() / "spider2-snow" / "catalog.jsonl", databases=3)
    result = bench.run(rows)
    assert result["databases"] == 3 and result["tables_indexed"] == result["tables"] == 64
    assert result["columns_indexed"] == result["columns"]
    assert result["edges_declared"] == 0 and result["edges_inferred"] >= 8
    assert result["documents_by_kind"]["identity"] == 64
    assert result["documents"] <= 12 * 64 and result["documents_per_table_max"] <= 12
