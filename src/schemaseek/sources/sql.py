"""SQL source: a database catalog read through SQLAlchemy's inspector → table documents and FKs.

Backends: PostgreSQL (``postgresql+psycopg://``, extra ``postgres``), MariaDB/MySQL
(``mysql+pymysql://``, extra ``mysql``), SQLite, DuckDB (``duckdb://``, extra ``duckdb``, read
from DuckDB's own catalog functions) and Snowflake (``snowflake://``, extra ``snowflake``; for
incremental polling see :mod:`schemaseek.sources.snowflake`).

**Ids.** A table's id is its qualified name: the bare table name for SQLite's ``main`` schema
(``other.table`` for attached databases), ``schema.table`` elsewhere, the default schema
included (``public.orders`` on PostgreSQL, ``shop.orders`` on MariaDB where the schema is the
database), ``database.schema.table`` for tables of attached DuckDB databases.

**Which tables.** ``schemas`` lists the schemas to read (default: every non-system schema on
PostgreSQL, the URL's database on MariaDB/MySQL, the default schema elsewhere; see
:mod:`schemaseek.sources.schemas`).
``allow`` / ``block`` filter table ids by prefix or ``re:`` regex, the blocklist winning, on
top of the default scratch-name blocklist (:mod:`schemaseek.sources.table_filters`); filtered
tables are never reflected.

**Documents.** ``documents="bounded"`` (default) builds a few documents per table — identity,
column facets, relationships (:mod:`schemaseek.sources.bounded`); ``documents="single"`` builds
one ``SQL_TABLE`` document per table whose members are "name type — description" for the first
:data:`MAX_DESCRIBED_COLUMNS` columns, then bare names.

**Tables** are read into :class:`~schemaseek.sources.records.TableRecord` dicts, kept in
``SourceSchema.raw["tables"]``.

**Edges.** Declared foreign keys become ``foreignKey`` edges, referencing table → referenced
table, with ``data = {"columns", "ref_columns", "inferred": False, "name"}``. With
``infer="auto"`` (default), a catalog that declares no foreign key at all gets edges inferred
from ``<X>_ID`` column names instead (:mod:`schemaseek.sources.inferred`, ``data["inferred"]``
True); ``infer=True`` adds inferred edges for columns no declared key covers, ``False`` never.

**SQLite descriptions.** SQLite has no ``COMMENT`` syntax, so schemaseek reads comments from the
``CREATE`` statement that SQLite keeps verbatim in ``sqlite_master.sql``:

* ``-- text`` lines right after the ``CREATE TABLE name (`` line, before the first column, are
  the table's description (several lines are joined with spaces); for a view, ``-- text`` lines
  right after its first line (``CREATE VIEW name AS``);
* a ``-- text`` comment at the end of a column's line is that column's description.

They apply only where the inspector reports no comment. The embedded demo uses this layout.

**Secrets.** Connection strings may hold passwords: errors, logs and ``SourceSchema.raw`` only
ever show the URL redacted (:mod:`schemaseek.sources.redact`); the schema hash covers the
catalog only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import URL, Engine
from sqlalchemy.exc import SQLAlchemyError

from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.errors import ConfigError, SourceError
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.sources.bounded import bounded_documents
from schemaseek.sources.engines import create_engine, parse_url
from schemaseek.sources.inferred import infer_foreign_keys
from schemaseek.sources.records import TableData, TableRecord
from schemaseek.sources.redact import Secrets, redact_url, redacting_loggers
from schemaseek.sources.reflect import parse_sqlite_comments, reflect_schema
from schemaseek.sources.schemas import schemas_to_read
from schemaseek.sources.table_filters import TableFilter

__all__ = [
    "MAX_DESCRIBED_COLUMNS",
    "DocumentMode",
    "InferMode",
    "build_sql_schema",
    "foreign_key_edges",
    "load_sql",
    "parse_sqlite_comments",
    "table_document",
    "table_signature",
]

MAX_DESCRIBED_COLUMNS = 64
"""Single documents carry "name type — description" for this many columns, then bare names."""

DocumentMode = Literal["bounded", "single"]
InferMode = Literal["auto"] | bool


def load_sql(
    url: str,
    source: str | None = None,
    schemas: Sequence[str] | None = None,
    *,
    engine: Engine | None = None,
    allow: Iterable[str] = (),
    block: Iterable[str] = (),
    default_block: bool = True,
    documents: DocumentMode = "bounded",
    infer: InferMode = "auto",
    max_columns: int | None = None,
) -> SourceSchema:
    """Read the tables and views of ``schemas`` (default: every non-system one, see
    :mod:`schemaseek.sources.schemas`) of a database.

    ``engine`` reuses an existing engine (``url`` then only names the source); otherwise one is
    created from ``url`` and disposed of afterwards. A missing driver raises
    :class:`MissingExtraError`; anything else that fails raises :class:`SourceError`.
    """
    table_filter = TableFilter.create(allow, block, default_block)
    secrets = Secrets()
    parsed = engine.url if engine is not None else parse_url(url, secrets)
    secrets.add_url(parsed)
    safe = redact_url(parsed)
    owned = engine is None
    with redacting_loggers(secrets):
        active = engine if engine is not None else create_engine(parsed, safe, secrets)
        try:
            with active.connect() as conn:
                wanted = schemas_to_read(conn, schemas, safe, table_filter)
                tables = [t for s in wanted for t in reflect_schema(conn, s, table_filter)]
            _resolve_references(tables)
        except SQLAlchemyError as exc:
            raise SourceError(
                f"cannot read the catalog of {safe}: {secrets.scrub(str(exc))}"
            ) from None
        finally:
            if owned:
                active.dispose()
    schema = build_sql_schema(
        tables, source or _default_name(parsed), documents=documents, infer=infer,
        max_columns=max_columns,
    )  # fmt: skip
    schema.raw["url"] = safe
    return schema


def build_sql_schema(
    tables: list[TableRecord],
    source: str,
    *,
    documents: DocumentMode = "bounded",
    infer: InferMode = "auto",
    max_columns: int | None = None,
) -> SourceSchema:
    """Documents, edges and hash from reflected tables (any loader's ``raw["tables"]``);
    ``max_columns`` keeps each table's first columns only (``MAX_COLUMNS_PER_TABLE``)."""
    if documents not in ("bounded", "single"):
        raise ConfigError(f"documents must be 'bounded' or 'single', not {documents!r}")
    if max_columns is not None:
        tables = [_capped(t, max_columns) for t in tables]
    edges = foreign_key_edges(tables)
    if infer is True or (infer == "auto" and not any(t["foreign_keys"] for t in tables)):
        edges += infer_foreign_keys(tables)
    docs = (
        bounded_documents(tables, source, edges)
        if documents == "bounded"
        else [table_document(t, source) for t in tables]
    )
    return SourceSchema(
        name=source,
        kind="sql",
        documents=docs,
        edges=edges,
        schema_hash=stable_hash([table_signature(t) for t in tables]),
        raw={"tables": tables, "documents": documents},
    )


def _capped(table: TableRecord, limit: int) -> TableRecord:
    if len(table["columns"]) <= limit:
        return table
    capped = table.copy()
    capped["columns"] = table["columns"][: max(1, limit)]
    return capped


def foreign_key_edges(tables: Sequence[TableRecord]) -> list[Edge]:
    """Declared foreign keys as ``foreignKey`` edges between loaded tables (one per FK)."""
    ids = {t["id"] for t in tables}
    edges: list[Edge] = []
    for table in tables:
        for fk in table["foreign_keys"]:
            target = fk["ref_table"]
            if target is not None and target in ids:
                data: dict[str, Any] = {
                    "columns": list(fk["columns"]),
                    "ref_columns": list(fk["ref_columns"]),
                    "inferred": False,
                    "name": fk["name"],
                }
                edges.append(Edge(table["id"], target, Relation.FOREIGN_KEY, data))
    return edges


def _resolve_references(tables: list[TableRecord]) -> None:
    """Point a reference that names no loaded table at the one loaded table of that name.

    (PostgreSQL omits the schema of referenced tables on the search path, so a key from
    ``sales.orders`` to ``public.currency`` first reads as ``sales.currency``.)
    """
    ids = {t["id"] for t in tables}
    by_name: dict[str | None, list[str]] = {}
    for table in tables:
        by_name.setdefault(table["name"], []).append(table["id"])
    for table in tables:
        for fk in table["foreign_keys"]:
            found = by_name.get(fk["ref_name"], [])
            if fk["ref_table"] not in ids and len(found) == 1:
                fk["ref_table"] = found[0]


def _default_name(url: URL) -> str:
    database = "" if url.database in (None, ":memory:") else str(url.database)
    return Path(database).stem or url.get_backend_name()


def table_document(table: TableRecord, source: str) -> Document:
    """The single ``SQL_TABLE`` document of a table (``documents="single"``, catalog files):
    members "name type — description" for the first :data:`MAX_DESCRIBED_COLUMNS` columns,
    then bare names; ``data`` a :class:`~schemaseek.sources.records.TableData` without
    ``database`` and ``documents``."""
    members: list[str] = []
    for i, col in enumerate(table["columns"]):
        if i >= MAX_DESCRIBED_COLUMNS:
            members.append(col["name"])
            continue
        text = f"{col['name']} {col['type']}".strip()
        members.append(f"{text} — {col['description']}" if col["description"] else text)
    data: TableData = {
        "columns": table["columns"],
        "primary_key": table["primary_key"],
        "foreign_keys": table["foreign_keys"],
        "schema": table["schema"],
        "is_view": table["is_view"],
    }
    return Document(
        id=table["id"],
        kind=DocKind.SQL_TABLE,
        source=source,
        name=table["name"],
        description=table["description"],
        members=tuple(members),
        data=dict(data),
    )


def table_signature(table: TableRecord) -> str:
    """One table's part of the schema hash (table order never matters, column order does)."""
    columns = ";".join(
        f"{c['name']}:{c.get('type')}:{c.get('nullable')}:{c.get('description')}"
        for c in table["columns"]
    )
    keys = sorted(
        f"{fk['columns']}->{fk['ref_table']}{fk['ref_columns']}" for fk in table["foreign_keys"]
    )
    head = (
        f"{table['id']}|{table.get('is_view')}|{table.get('description')}"
        f"|{table.get('primary_key')}"
    )
    return "|".join([head, columns, *keys])
