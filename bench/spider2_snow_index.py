"""Index the whole Spider 2.0-Snow catalog through the SQL fetcher: bounded documents, inferred FKs.

The catalog (``shared/datasets/spider2-snow/catalog.jsonl``: 147 databases, 6,858 tables, 175K
columns) is loaded into DuckDB — one attached in-memory database per Snowflake database, its
schemas and tables with real DuckDB types and column/table comments — then read back with
schemaseek's SQL fetcher (DuckDB's catalog functions), turned into bounded documents and
inferred ``<X>_ID`` foreign keys, and indexed.

Tables the catalog lists without columns (526 Cybersyn tables known only by their description)
are created with one placeholder column, ``_columns_unpublished``, since a table needs one.

Printed: tables and columns loaded, tables kept by the default blocklist, documents (by kind),
edges (declared / inferred), load time, fetch time, document build time, keyword index time and,
with ``--embed``, the cold embedding time of every document on CPU (all-MiniLM-L6-v2 int8) and
the process's peak RSS.

    .venv/bin/python bench/spider2_snow_index.py                   # fetch + documents + keyword
    .venv/bin/python bench/spider2_snow_index.py --embed           # + cold embedding
    .venv/bin/python bench/spider2_snow_index.py --databases 3     # a small slice
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy.pool import StaticPool

from schemaseek.index import SchemaIndex
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.reflect import reflect_schema
from schemaseek.sources.sql import build_sql_schema
from schemaseek.sources.table_filters import TableFilter

CATALOG = Path(__file__).resolve().parents[2] / "shared/datasets/spider2-snow/catalog.jsonl"
PLACEHOLDER = "_columns_unpublished"
_TYPES = {
    "TEXT": "VARCHAR", "VARCHAR": "VARCHAR", "FLOAT": "DOUBLE", "DOUBLE": "DOUBLE",
    "NUMBER": "DECIMAL(38,0)", "BOOLEAN": "BOOLEAN", "DATE": "DATE", "TIME": "TIME",
    "VARIANT": "JSON", "OBJECT": "JSON", "ARRAY": "VARCHAR[]", "BINARY": "BLOB",
    "TIMESTAMP_NTZ": "TIMESTAMP", "TIMESTAMP_LTZ": "TIMESTAMPTZ", "TIMESTAMP_TZ": "TIMESTAMPTZ",
    "GEOGRAPHY": "VARCHAR", "GEOMETRY": "VARCHAR",
}  # fmt: skip


def read_catalog(path: Path, databases: int | None = None) -> list[dict[str, Any]]:
    """Catalog rows; with ``databases``, only the first N databases (by name)."""
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if databases is not None:
        keep = set(sorted({r["database"] for r in rows})[:databases])
        rows = [r for r in rows if r["database"] in keep]
    return rows


def duckdb_type(declared: str | None) -> str:
    """A Snowflake type name as a DuckDB type (``NUMBER(10,2)`` → ``DECIMAL(10,2)``)."""
    text = (declared or "TEXT").strip().upper()
    head = text.split("(")[0]
    if head in ("NUMBER", "DECIMAL", "NUMERIC") and "(" in text:
        return "DECIMAL" + text[text.index("(") :]
    return _TYPES.get(head, "VARCHAR")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _s(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def ddl(rows: Iterable[dict[str, Any]]) -> list[str]:
    """Schemas, tables and comments of one database's rows."""
    statements: list[str] = []
    schemas: set[str] = set()
    for row in rows:
        db, schema, table = _q(row["database"]), _q(row["schema"]), _q(row["table"])
        if row["schema"] not in schemas:
            schemas.add(row["schema"])
            statements.append(f"CREATE SCHEMA {db}.{schema}")
        name = f"{db}.{schema}.{table}"
        columns = row["columns"] or [{"name": PLACEHOLDER, "type": "TEXT"}]
        body = ", ".join(f"{_q(c['name'])} {duckdb_type(c.get('type'))}" for c in columns)
        statements.append(f"CREATE TABLE {name} ({body})")
        if row.get("description"):
            statements.append(f"COMMENT ON TABLE {name} IS {_s(row['description'])}")
        statements += [
            f"COMMENT ON COLUMN {name}.{_q(c['name'])} IS {_s(c['description'])}"
            for c in columns
            if c.get("description")
        ]
    return statements


def load_duckdb(rows: Sequence[dict[str, Any]]) -> tuple[sqlalchemy.Engine, list[str]]:
    """An in-memory DuckDB engine (one pooled connection) holding ``rows``; its schema names."""
    engine = sqlalchemy.create_engine("duckdb:///:memory:", poolclass=StaticPool)
    by_db: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_db.setdefault(row["database"], []).append(row)
    with engine.connect() as conn:
        raw = conn.execution_options(no_parameters=True)
        for database, members in sorted(by_db.items()):
            raw.exec_driver_sql(f"ATTACH ':memory:' AS {_q(database)}")
            conn.commit()
            for statement in ddl(members):  # one transaction per attached database
                raw.exec_driver_sql(statement)
            conn.commit()
    schemas = sorted({f"{r['database']}.{r['schema']}" for r in rows})
    return engine, schemas


def run(
    rows: Sequence[dict[str, Any]], *, embed: bool = False, default_block: bool = True
) -> dict[str, Any]:
    """Load, fetch, build documents and index; returns the measurements."""
    out: dict[str, Any] = {
        "databases": len({r["database"] for r in rows}),
        "tables": len(rows),
        "columns": sum(len(r["columns"]) for r in rows),
    }
    started = time.perf_counter()
    engine, schemas = load_duckdb(rows)
    out["load_s"] = time.perf_counter() - started

    started = time.perf_counter()
    table_filter = TableFilter.create(default_block=default_block)
    with engine.connect() as conn:
        tables = [t for s in schemas for t in reflect_schema(conn, s, table_filter)]
    out["fetch_s"] = time.perf_counter() - started
    out["tables_indexed"] = len(tables)
    out["columns_indexed"] = sum(len(t["columns"]) for t in tables)

    started = time.perf_counter()
    schema = build_sql_schema(tables, "spider2-snow", documents="bounded", infer="auto")
    out["documents_s"] = time.perf_counter() - started
    out.update(_counts(schema))
    engine.dispose()

    started = time.perf_counter()
    report = SchemaIndex([schema], provider=None).build()
    out["keyword_index_s"] = time.perf_counter() - started
    assert report.documents == len(schema.documents)
    if embed:
        from schemaseek.embedding.onnx import OnnxEmbeddingProvider

        provider = OnnxEmbeddingProvider()
        started = time.perf_counter()
        index = SchemaIndex([schema], provider=provider)
        built = index.build()
        out["cold_index_with_embedding_s"] = time.perf_counter() - started
        out["embedded"] = built.embedded
        out["embed_docs_per_s"] = built.embedded / max(out["cold_index_with_embedding_s"], 1e-9)
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _counts(schema: SourceSchema) -> dict[str, Any]:
    kinds = Counter(
        "identity" if not d.target else d.id.rsplit("#", 1)[1].split(":")[0]
        for d in schema.documents
    )
    inferred = sum(1 for e in schema.edges if e.data.get("inferred"))
    return {
        "documents": len(schema.documents),
        "documents_by_kind": dict(sorted(kinds.items())),
        "documents_per_table_max": max(
            (len(d.data["documents"]) + 1 for d in schema.documents if not d.target), default=0
        ),
        "edges_declared": len(schema.edges) - inferred,
        "edges_inferred": inferred,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, default=CATALOG)
    parser.add_argument("--databases", type=int, default=None, help="only the first N")
    parser.add_argument("--embed", action="store_true", help="also embed every document")
    parser.add_argument("--no-default-block", action="store_true")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    rows = read_catalog(args.catalog, args.databases)
    result = run(rows, embed=args.embed, default_block=not args.no_default_block)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            shown = f"{value:.2f}" if isinstance(value, float) else value
            print(f"{key:>28}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
