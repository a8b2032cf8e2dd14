"""SQL source: a database catalog read through SQLAlchemy's inspector → table documents and FKs.

One ``SQL_TABLE`` document per table and view. Its id is the fully qualified name: the bare
table name for SQLite's ``main`` schema (``other.table`` for attached databases), and
``schema.table`` elsewhere, the default schema included (``public.orders`` on PostgreSQL).
Declared foreign keys become ``foreignKey`` edges, referencing table → referenced table, with
``data = {"columns", "ref_columns", "inferred": False, "name"}``.

**SQLite descriptions.** SQLite has no ``COMMENT`` syntax, so schemaseek reads comments from the
``CREATE`` statement that SQLite keeps verbatim in ``sqlite_master.sql``:

* ``-- text`` lines right after the ``CREATE TABLE name (`` line, before the first column, are
  the table's description (several lines are joined with spaces); for a view, ``-- text`` lines
  right after its first line (``CREATE VIEW name AS``);
* a ``-- text`` comment at the end of a column's line is that column's description.

They apply only where the inspector reports no comment. The embedded demo uses this layout.

**Seam for inferred joins.** Only declared keys are read here (:func:`foreign_key_edges`).
Edges inferred from ``<X>_ID`` column names belong to a separate pass over
``SourceSchema.raw["tables"]`` (per table: ``id``, ``name``, ``schema``, ``columns``,
``primary_key``, ``foreign_keys``) that adds ``foreignKey`` edges with ``data["inferred"] = True``.

Connection strings may hold passwords: errors only show the URL with the password hidden.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import URL, Connection, Engine
from sqlalchemy.engine.reflection import ObjectKind
from sqlalchemy.exc import ArgumentError, CompileError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.types import NullType, TypeEngine

from schemaseek.documents import DocKind, Document
from schemaseek.errors import MissingExtraError, SourceError
from schemaseek.sources.base import Edge, SourceSchema, stable_hash

__all__ = ["MAX_DESCRIBED_COLUMNS", "foreign_key_edges", "load_sql", "parse_sqlite_comments"]

MAX_DESCRIBED_COLUMNS = 64
"""Members carry "name type — description" for this many columns, then bare column names."""

# backend → (package to install, schemaseek extra that installs it)
_EXTRAS = {
    "postgresql": ("psycopg", "postgres"),
    "mysql": ("pymysql", "mysql"),
    "mariadb": ("pymysql", "mysql"),
    "duckdb": ("duckdb-engine", "duckdb"),
    "snowflake": ("snowflake-sqlalchemy", "snowflake"),
}
_CONSTRAINT_WORDS = {"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK"}
_IDENT = re.compile(r'\s*(?:"((?:[^"]|"")+)"|\[([^\]]+)\]|`([^`]+)`|([A-Za-z_][\w$]*))')


def load_sql(
    url: str,
    source: str | None = None,
    schemas: Sequence[str] | None = None,
    *,
    engine: Engine | None = None,
) -> SourceSchema:
    """Read the tables and views of ``schemas`` (default: the default schema) of a database.

    ``engine`` reuses an existing engine (``url`` then only names the source); otherwise one is
    created from ``url`` and disposed of afterwards. A missing driver raises
    :class:`MissingExtraError`; anything else that fails raises :class:`SourceError`.
    """
    parsed = engine.url if engine is not None else _parse_url(url)
    safe = parsed.render_as_string(hide_password=True)
    owned = engine is None
    active = engine if engine is not None else _create_engine(parsed, safe)
    try:
        with active.connect() as conn:
            wanted: Sequence[str | None] = schemas or [None]
            tables = [t for schema in wanted for t in _reflect(conn, schema)]
        _resolve_references(tables)
    except SQLAlchemyError as exc:
        raise SourceError(f"cannot read the catalog of {safe}: {_scrub(str(exc), parsed)}") from exc
    finally:
        if owned:
            active.dispose()
    name = source or _default_name(parsed)
    return SourceSchema(
        name=name,
        kind="sql",
        documents=[_document(t, name) for t in tables],
        edges=foreign_key_edges(tables),
        schema_hash=stable_hash([_signature(t) for t in tables]),
        raw={"tables": tables},
    )


def foreign_key_edges(tables: Sequence[dict[str, Any]]) -> list[Edge]:
    """Declared foreign keys as ``foreignKey`` edges between loaded tables (one per FK)."""
    ids = {t["id"] for t in tables}
    edges: list[Edge] = []
    for table in tables:
        for fk in table["foreign_keys"]:
            if fk["ref_table"] in ids:
                data = {
                    "columns": list(fk["columns"]),
                    "ref_columns": list(fk["ref_columns"]),
                    "inferred": False,
                    "name": fk["name"],
                }
                edges.append(Edge(table["id"], fk["ref_table"], "foreignKey", data))
    return edges


def _resolve_references(tables: list[dict[str, Any]]) -> None:
    """Point a reference that names no loaded table at the one loaded table of that name.

    (PostgreSQL omits the schema of referenced tables on the search path, so a key from
    ``sales.orders`` to ``public.currency`` first reads as ``sales.currency``.)
    """
    ids = {t["id"] for t in tables}
    by_name: dict[str, list[str]] = {}
    for table in tables:
        by_name.setdefault(table["name"], []).append(table["id"])
    for table in tables:
        for fk in table["foreign_keys"]:
            found = by_name.get(fk["ref_name"], [])
            if fk["ref_table"] not in ids and len(found) == 1:
                fk["ref_table"] = found[0]


def parse_sqlite_comments(sql: str) -> tuple[str, dict[str, str]]:
    """(table description, {column: description}) from a CREATE statement (module docstring)."""
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


def _parse_url(url: str) -> URL:
    try:
        return sqlalchemy.make_url(url)
    except ArgumentError:
        raise SourceError("invalid database URL: it could not be parsed") from None


def _create_engine(url: URL, safe: str) -> Engine:
    backend = url.get_backend_name()
    extra = _EXTRAS.get(backend)
    if url.drivername in ("mysql", "mariadb") and find_spec("MySQLdb") is None:
        url = url.set(drivername=f"{url.drivername}+pymysql")  # the driver the extra installs
    database = url.database or ""
    is_file = backend == "sqlite" and database not in ("", ":memory:")
    if is_file and not database.startswith("file:") and not Path(database).is_file():
        raise SourceError(f"{safe}: SQLite database file not found")
    try:
        return sqlalchemy.create_engine(url)
    except ImportError as exc:
        module = exc.name or "the database driver"
        if extra is None:
            raise SourceError(f"{safe}: the driver {module} is not installed") from exc
        error = MissingExtraError(module, extra[1])
        if backend in ("postgresql", "mysql", "mariadb") and module != extra[0]:
            error.add_note(
                f"the '{extra[1]}' extra installs {extra[0]}: use {backend}+{extra[0]}://"
            )
        raise error from exc
    except NoSuchModuleError as exc:
        if extra is None:
            raise SourceError(f"{safe}: no SQLAlchemy dialect for '{url.drivername}'") from exc
        raise MissingExtraError(extra[0], extra[1]) from exc
    except ArgumentError as exc:
        raise SourceError(f"{safe}: invalid database URL: {_scrub(str(exc), url)}") from exc


def _scrub(text: str, url: URL) -> str:
    if url.password:
        text = text.replace(str(url.password), "***")
    return text


def _default_name(url: URL) -> str:
    database = "" if url.database in (None, ":memory:") else str(url.database)
    return Path(database).stem or url.get_backend_name()


def _reflect(conn: Connection, schema: str | None) -> list[dict[str, Any]]:
    """Tables and views of one schema as plain dicts (the ``raw["tables"]`` entries)."""
    inspector = sqlalchemy.inspect(conn)
    dialect = conn.dialect
    sqlite = dialect.name == "sqlite"
    names = [(n, False) for n in inspector.get_table_names(schema)]
    views = list(inspector.get_view_names(schema))
    with contextlib.suppress(NotImplementedError):
        views += inspector.get_materialized_view_names(schema)
    names += [(n, True) for n in views]
    kind = ObjectKind.ANY
    columns = inspector.get_multi_columns(schema, kind=kind)
    pks = _optional(lambda: inspector.get_multi_pk_constraint(schema, kind=kind))
    fks = _optional(lambda: inspector.get_multi_foreign_keys(schema, kind=kind))
    comments = _optional(lambda: inspector.get_multi_table_comment(schema, kind=kind))
    notes = _sqlite_notes(conn, schema) if sqlite else {}
    home = schema if sqlite else (schema or inspector.default_schema_name)

    def qualify(table: str, in_schema: str | None) -> str:
        if sqlite:
            return table if in_schema in (None, "main") else f"{in_schema}.{table}"
        return f"{in_schema}.{table}" if in_schema else table

    tables: list[dict[str, Any]] = []
    for name, is_view in sorted(names):
        key = (schema, name)
        table_note, column_notes = notes.get(name, ("", {}))
        pk = list((pks.get(key) or {}).get("constrained_columns") or [])
        cols = [
            {
                "name": c["name"],
                "type": _type_name(c["type"], dialect),
                "description": (c.get("comment") or column_notes.get(c["name"], "")).strip(),
                "primary_key": c["name"] in pk,
                "nullable": bool(c.get("nullable", True)),
            }
            for c in columns.get(key, [])
        ]
        foreign = [
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
            {
                "id": qualify(name, home),
                "name": name,
                "schema": home,
                "is_view": is_view,
                "description": (comment or "").strip(),
                "columns": cols,
                "primary_key": pk,
                "foreign_keys": foreign,
            }
        )
    return tables


def _optional(call: Callable[[], Mapping[Any, Any]]) -> dict[Any, Any]:
    try:
        return dict(call())
    except NotImplementedError:
        return {}


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


def _document(table: dict[str, Any], source: str) -> Document:
    members: list[str] = []
    for i, col in enumerate(table["columns"]):
        if i >= MAX_DESCRIBED_COLUMNS:
            members.append(col["name"])
            continue
        text = f"{col['name']} {col['type']}".strip()
        members.append(f"{text} — {col['description']}" if col["description"] else text)
    data = {k: table[k] for k in ("columns", "primary_key", "foreign_keys", "schema", "is_view")}
    return Document(
        id=table["id"],
        kind=DocKind.SQL_TABLE,
        source=source,
        name=table["name"],
        description=table["description"],
        members=tuple(members),
        data=data,
    )


def _signature(table: dict[str, Any]) -> str:
    """One table's part of the schema hash (table order never matters, column order does)."""
    columns = ";".join(
        f"{c['name']}:{c['type']}:{c['nullable']}:{c['description']}" for c in table["columns"]
    )
    keys = sorted(
        f"{fk['columns']}->{fk['ref_table']}{fk['ref_columns']}" for fk in table["foreign_keys"]
    )
    head = f"{table['id']}|{table['is_view']}|{table['description']}|{table['primary_key']}"
    return "|".join([head, columns, *keys])
