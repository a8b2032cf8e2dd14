"""Reading a catalog into table records: SQLAlchemy's inspector, or DuckDB's own catalog.

Each table becomes a :class:`~schemaseek.sources.records.TableRecord` (the
``SourceSchema.raw["tables"]`` layout): ``id``, ``name``,
``schema``, ``database``, ``is_view``, ``description``, ``columns`` (``name``, ``type``,
``description``, ``primary_key``, ``nullable``), ``primary_key`` and ``foreign_keys``
(``name``, ``columns``, ``ref_table``, ``ref_name``, ``ref_columns``).

The table filter applies before any detail is read: names are listed first, and columns, keys
and comments are requested only for the tables that pass (``filter_names`` on the inspector).

DuckDB is read from ``duckdb_tables()``, ``duckdb_views()``, ``duckdb_columns()`` and
``duckdb_constraints()`` rather than the inspector, which duckdb-engine cannot serve on
SQLAlchemy 2.1. A DuckDB schema is named ``schema`` (in the current database) or
``database.schema`` (an attached database); table ids are ``schema.table`` in the current
database and ``database.schema.table`` in attached ones.

SQLite has no ``COMMENT`` syntax: descriptions come from ``--`` comments in the ``CREATE``
statement (:func:`parse_sqlite_comments`, documented in :mod:`schemaseek.sources.sql`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import Any

import sqlalchemy
from sqlalchemy import Connection
from sqlalchemy.engine.reflection import ObjectKind
from sqlalchemy.exc import CompileError
from sqlalchemy.types import NullType, TypeEngine

from schemaseek.sources.records import ColumnRecord, ForeignKeyRecord, TableRecord
from schemaseek.sources.table_filters import TableFilter

__all__ = ["parse_sqlite_comments", "reflect_schema"]

_CONSTRAINT_WORDS = {"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK"}
_IDENT = re.compile(r'\s*(?:"((?:[^"]|"")+)"|\[([^\]]+)\]|`([^`]+)`|([A-Za-z_][\w$]*))')


def reflect_schema(
    conn: Connection, schema: str | None, table_filter: TableFilter
) -> list[TableRecord]:
    """The tables and views of one schema (``None``: the default one) that pass the filter."""
    if conn.dialect.name == "duckdb":
        return _reflect_duckdb(conn, schema, table_filter)
    return _reflect_inspector(conn, schema, table_filter)


def _reflect_inspector(
    conn: Connection, schema: str | None, table_filter: TableFilter
) -> list[TableRecord]:
    inspector = sqlalchemy.inspect(conn)
    dialect = conn.dialect
    sqlite = dialect.name == "sqlite"
    mysql = dialect.name in ("mysql", "mariadb")
    home = schema if sqlite else (schema or inspector.default_schema_name)
    database = home if mysql else (None if sqlite else conn.engine.url.database)

    def qualify(table: str, in_schema: str | None) -> str:
        if sqlite:
            return table if in_schema in (None, "main") else f"{in_schema}.{table}"
        return f"{in_schema}.{table}" if in_schema else table

    views = list(inspector.get_view_names(schema))
    with contextlib.suppress(NotImplementedError):
        views += inspector.get_materialized_view_names(schema)
    listed = [(n, False) for n in inspector.get_table_names(schema)] + [(n, True) for n in views]
    names = [(n, v) for n, v in listed if table_filter.allows(qualify(n, home))]
    if not names:
        return []
    kind = ObjectKind.ANY
    wanted = [n for n, _ in names]
    columns = inspector.get_multi_columns(schema, filter_names=wanted, kind=kind)
    pks = _optional(
        lambda: inspector.get_multi_pk_constraint(schema, filter_names=wanted, kind=kind)
    )
    fks = _optional(
        lambda: inspector.get_multi_foreign_keys(schema, filter_names=wanted, kind=kind)
    )
    comments = _optional(
        lambda: inspector.get_multi_table_comment(schema, filter_names=wanted, kind=kind)
    )
    notes = _sqlite_notes(conn, schema) if sqlite else {}
    tables: list[TableRecord] = []
    for name, is_view in sorted(names):
        key = (schema, name)
        table_note, column_notes = notes.get(name, ("", {}))
        pk = list((pks.get(key) or {}).get("constrained_columns") or [])
        cols: list[ColumnRecord] = [
            {
                "name": c["name"],
                "type": _type_name(c["type"], dialect),
                "description": (c.get("comment") or column_notes.get(c["name"], "")).strip(),
                "primary_key": c["name"] in pk,
                "nullable": bool(c.get("nullable", True)),
            }
            for c in columns.get(key, [])
        ]
        foreign: list[ForeignKeyRecord] = [
            {
                "name": fk.get("name"),
                "columns": list(fk["constrained_columns"]),
                "ref_table": qualify(fk["referred_table"], fk.get("referred_schema") or home),
                "ref_name": fk["referred_table"],
                "ref_columns": list(fk["referred_columns"]),
            }
            for fk in fks.get(key, [])
        ]
        comment = (comments.get(key) or {}).get("text") or table_note
        tables.append(
            _table(qualify(name, home), name, home, database, is_view, comment, cols, pk, foreign)
        )
    return tables


def _table(
    table_id: str,
    name: str,
    schema: str | None,
    database: str | None,
    is_view: bool,
    description: str | None,
    columns: list[ColumnRecord],
    primary_key: list[str],
    foreign_keys: list[ForeignKeyRecord],
) -> TableRecord:
    return {
        "id": table_id,
        "name": name,
        "schema": schema,
        "database": database,
        "is_view": is_view,
        "description": (description or "").strip(),
        "columns": columns,
        "primary_key": primary_key,
        "foreign_keys": foreign_keys,
    }


def _optional(call: Callable[[], Mapping[Any, Any]]) -> dict[Any, Any]:
    try:
        return dict(call())
    except NotImplementedError:
        return {}


def _reflect_duckdb(
    conn: Connection, schema: str | None, table_filter: TableFilter
) -> list[TableRecord]:
    current_db, current_schema = conn.exec_driver_sql(
        "SELECT current_database(), current_schema()"
    ).one()
    database, _, name = (schema or current_schema).rpartition(".")
    database = database or current_db
    prefix = f"{name}." if database == current_db else f"{database}.{name}."
    where = "database_name = ? AND schema_name = ? AND NOT internal"
    params = (database, name)
    listed = conn.exec_driver_sql(
        f"SELECT table_name, false, comment FROM duckdb_tables() WHERE {where} "
        f"UNION ALL SELECT view_name, true, comment FROM duckdb_views() WHERE {where}",
        params + params,
    ).all()
    kept = {str(t): (bool(v), c) for t, v, c in listed if table_filter.allows(prefix + str(t))}
    if not kept:
        return []
    columns: dict[str, list[ColumnRecord]] = {}
    for table, column, type_, nullable, comment in conn.exec_driver_sql(
        "SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() "
        f"WHERE {where} ORDER BY table_name, column_index",
        params,
    ):
        if table in kept:  # rows of filtered tables are skipped, never turned into tables
            columns.setdefault(str(table), []).append(
                {
                    "name": str(column),
                    "type": str(type_ or ""),
                    "description": str(comment or "").strip(),
                    "primary_key": False,
                    "nullable": bool(nullable),
                }
            )
    pks: dict[str, list[str]] = {}
    fks: dict[str, list[ForeignKeyRecord]] = {}
    for table, kind, cols, ref, ref_cols, cname in conn.exec_driver_sql(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table, "
        "referenced_column_names, constraint_name FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') ORDER BY constraint_index",
        params,
    ):
        if table not in kept:
            continue
        if kind == "PRIMARY KEY":
            pks[str(table)] = [str(c) for c in cols]
        else:
            fks.setdefault(str(table), []).append(
                {
                    "name": cname,
                    "columns": [str(c) for c in cols],
                    "ref_table": prefix + str(ref),
                    "ref_name": str(ref),
                    "ref_columns": [str(c) for c in ref_cols],
                }
            )
    tables = []
    for table in sorted(kept):
        is_view, comment = kept[table]
        pk = pks.get(table, [])
        cols = columns.get(table, [])
        for col in cols:
            col["primary_key"] = col["name"] in pk
        keys = fks.get(table, [])
        made = _table(prefix + table, table, name, database, is_view, comment, cols, pk, keys)
        tables.append(made)
    return tables


def _sqlite_notes(conn: Connection, schema: str | None) -> dict[str, tuple[str, dict[str, str]]]:
    master = "sqlite_master" if schema in (None, "main") else f'"{schema}".sqlite_master'
    rows = conn.exec_driver_sql(
        f"SELECT name, sql FROM {master} WHERE type IN ('table', 'view') AND sql IS NOT NULL"
    )
    return {str(name): parse_sqlite_comments(str(sql)) for name, sql in rows}


def _type_name(type_: TypeEngine[Any], dialect: sqlalchemy.Dialect) -> str:
    if isinstance(type_, NullType):
        return ""
    try:
        return str(type_.compile(dialect=dialect))
    except CompileError:
        return type(type_).__name__.upper()


def parse_sqlite_comments(sql: str) -> tuple[str, dict[str, str]]:
    """(table description, {column: description}) from a SQLite ``CREATE`` statement."""
    lines = sql.splitlines()
    is_view = bool(re.match(r"\s*CREATE\s+(TEMP\w*\s+)?VIEW\b", sql, re.IGNORECASE))
    start = (
        0
        if is_view
        else next((i for i, ln in enumerate(lines) if "(" in _split_comment(ln)[0]), -1)
    )
    if start < 0:
        return "", {}
    described: list[str] = []
    columns: dict[str, str] = {}
    in_header = True
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if in_header and (stripped.startswith("--") or not stripped):
            if stripped:
                described.append(stripped[2:].strip())
            continue
        in_header = False
        if is_view:
            break
        code, comment = _split_comment(line)
        match = _IDENT.match(code)
        if comment and code.strip() and match:
            bare = match.group(4)
            if bare is None or bare.upper() not in _CONSTRAINT_WORDS:
                name = next(g for g in match.groups() if g is not None).replace('""', '"')
                columns[name] = comment
    return " ".join(d for d in described if d), columns


def _split_comment(line: str) -> tuple[str, str]:
    """Split a line at the first ``--`` that is outside quotes and brackets."""
    closing = {"'": "'", '"': '"', "`": "`", "[": "]"}
    quote: str | None = None
    for i, char in enumerate(line):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in closing:
            quote = closing[char]
        elif line.startswith("--", i):
            return line[:i], line[i + 2 :].strip()
    return line, ""
