"""Evaluation catalogs (``shared/datasets``) turned into real tables: DDL for PostgreSQL, MariaDB
and DuckDB, with SQL types, column comments and declared foreign keys.

The datasets folder is ``../shared/datasets`` next to the repository, or
``$SCHEMASEEK_DATASETS``; tests that need it are skipped when it is absent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import sqlalchemy

from tests.helpers.datasets import DATASETS, dataset_missing

Dialect = Literal["postgresql", "mysql", "duckdb"]

ROOT = Path(__file__).resolve().parents[2]


def datasets_dir() -> Path:
    if not DATASETS.is_dir():
        dataset_missing(f"datasets folder {DATASETS} not found (set SCHEMASEEK_DATASETS)")
    return DATASETS


def catalog_rows(name: str, sources: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Rows of ``<datasets>/<name>/catalog.jsonl``, optionally only some sources."""
    wanted = None if sources is None else set(sources)
    path = datasets_dir() / name / "catalog.jsonl"
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if wanted is None or row["source"] in wanted:
                rows.append(row)
    return rows


def _quote(name: str, dialect: Dialect) -> str:
    if dialect == "mysql":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str, dialect: Dialect) -> str:
    if dialect == "mysql":
        text = text.replace("\\", "\\\\")
    return "'" + text.replace("'", "''") + "'"


_TYPES: dict[Dialect, dict[str, str]] = {
    "postgresql": {
        "integer": "integer", "text": "text", "real": "real", "date": "date",
        "datetime": "timestamp", "number": "numeric", "float": "double precision",
        "boolean": "boolean", "variant": "jsonb", "binary": "bytea", "time": "time",
    },
    "mysql": {
        "integer": "INT", "text": "TEXT", "real": "DOUBLE", "date": "DATE",
        "datetime": "DATETIME", "number": "DECIMAL(38,0)", "float": "DOUBLE",
        "boolean": "BOOLEAN", "variant": "JSON", "binary": "BLOB", "time": "TIME",
    },
    "duckdb": {
        "integer": "INTEGER", "text": "VARCHAR", "real": "REAL", "date": "DATE",
        "datetime": "TIMESTAMP", "number": "DECIMAL(38,0)", "float": "DOUBLE",
        "boolean": "BOOLEAN", "variant": "JSON", "object": "JSON", "array": "VARCHAR[]",
        "binary": "BLOB", "time": "TIME", "timestamp_ntz": "TIMESTAMP",
        "timestamp_ltz": "TIMESTAMPTZ", "timestamp_tz": "TIMESTAMPTZ", "geography": "VARCHAR",
        "geometry": "VARCHAR", "double": "DOUBLE",
    },
}  # fmt: skip


def sql_type(declared: str | None, dialect: Dialect, key: bool = False) -> str:
    """The dataset's type (SQLite or Snowflake names) as a real type of ``dialect``."""
    base = (declared or "text").strip().lower()
    head = base.split("(")[0].strip()
    if dialect == "mysql" and key and head in ("text", "varchar"):
        return "VARCHAR(255)"  # MariaDB indexes (and so keys) need a bounded type
    if head in ("varchar", "decimal", "number", "numeric") and "(" in base:
        if dialect == "duckdb" and head == "varchar":
            return "VARCHAR"
        return base.upper().replace("NUMBER", "DECIMAL")
    return _TYPES[dialect].get(head, "TEXT" if dialect != "postgresql" else "text")


def create_statements(
    rows: list[dict[str, Any]], dialect: Dialect, namespace: Callable[[dict[str, Any]], str]
) -> list[str]:
    """DDL for ``rows``: one namespace per ``namespace(row)`` (a schema, or a MariaDB database),
    tables with typed columns and comments, unique keys on referenced columns, foreign keys."""

    def q(name: str) -> str:
        return _quote(name, dialect)

    by_fqn = {row["fqn"]: row for row in rows}
    keyed: dict[str, set[str]] = {}
    referenced: dict[str, set[tuple[str, ...]]] = {}
    for row in rows:
        for fk in row["foreign_keys"]:
            if fk["ref_table_fqn"] in by_fqn:
                keyed.setdefault(row["fqn"], set()).update(fk["columns"])
                keyed.setdefault(fk["ref_table_fqn"], set()).update(fk["ref_columns"])
                referenced.setdefault(fk["ref_table_fqn"], set()).add(tuple(fk["ref_columns"]))

    def table_name(row: dict[str, Any]) -> str:
        return f"{q(namespace(row))}.{q(row['table'])}"

    statements = [
        f"CREATE {'DATABASE' if dialect == 'mysql' else 'SCHEMA'} {q(space)}"
        for space in dict.fromkeys(namespace(row) for row in rows)
    ]

    def foreign_keys(row: dict[str, Any]) -> list[str]:
        found = []
        for fk in row["foreign_keys"]:
            ref = by_fqn.get(fk["ref_table_fqn"])
            if ref is not None:
                cols = ", ".join(q(c) for c in fk["columns"])
                refs = ", ".join(q(c) for c in fk["ref_columns"])
                found.append(f"FOREIGN KEY ({cols}) REFERENCES {table_name(ref)} ({refs})")
        return found

    if dialect == "mysql":  # keys inline (each ALTER copies the table), checked after loading
        statements.insert(0, "SET FOREIGN_KEY_CHECKS = 0")
    for row in rows:
        keys = keyed.get(row["fqn"], set())
        columns = []
        for col in row["columns"]:
            text = f"{q(col['name'])} {sql_type(col['type'], dialect, col['name'] in keys)}"
            if dialect == "mysql" and col.get("description"):
                text += f" COMMENT {_literal(col['description'][:1000], dialect)}"
            columns.append(text)
        for i, cols in enumerate(sorted(referenced.get(row["fqn"], ()))):
            named = ", ".join(q(c) for c in cols)
            constraint = q(f"uq_{row['table'][:40]}_{i}")
            columns.append(f"CONSTRAINT {constraint} UNIQUE ({named})")
        if dialect == "mysql":
            columns += foreign_keys(row)
        statements.append(f"CREATE TABLE {table_name(row)} ({', '.join(columns)})")
        if dialect != "mysql":
            if row.get("description"):
                note = _literal(row["description"], dialect)
                statements.append(f"COMMENT ON TABLE {table_name(row)} IS {note}")
            for col in row["columns"]:
                if col.get("description"):
                    target = f"{table_name(row)}.{q(col['name'])}"
                    note = _literal(col["description"], dialect)
                    statements.append(f"COMMENT ON COLUMN {target} IS {note}")
    if dialect != "mysql":
        statements += [
            f"ALTER TABLE {table_name(row)} ADD {key}" for row in rows for key in foreign_keys(row)
        ]
    else:
        statements.append("SET FOREIGN_KEY_CHECKS = 1")
    return statements


def execute_all(engine: sqlalchemy.Engine, statements: list[str]) -> None:
    """Run DDL statements in one transaction, ``%`` and ``:`` taken literally."""
    with engine.begin() as conn:
        raw = conn.execution_options(no_parameters=True)
        for statement in statements:
            raw.exec_driver_sql(statement)
