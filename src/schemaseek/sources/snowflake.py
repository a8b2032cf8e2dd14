"""Snowflake catalog with incremental refresh: poll ``LAST_ALTERED`` instead of re-reading it all.

:class:`SnowflakeCatalog` reads tables and columns with plain SQL against Snowflake's
``INFORMATION_SCHEMA`` views (``qualifier="INFORMATION_SCHEMA"`` or ``"MYDB.INFORMATION_SCHEMA"``)
or the ``ACCOUNT_USAGE`` views (``qualifier="SNOWFLAKE.ACCOUNT_USAGE", account_usage=True``),
using only these columns:

* ``TABLES``: ``TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, COMMENT, LAST_ALTERED``
  (and ``DELETED`` with ``account_usage``);
* ``COLUMNS``: ``TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION,
  DATA_TYPE, IS_NULLABLE, COMMENT`` (and ``DELETED``).

Identifiers are unquoted, so any database exposing views with these names answers the same SQL
(the tests use PostgreSQL views). Table ids are ``CATALOG.SCHEMA.TABLE``.

:meth:`SnowflakeCatalog.fetch` lists the tables, applies the allow/block filter
(:mod:`.table_filters`) and reads columns only for the tables that pass, in batches per
schema.
:meth:`SnowflakeCatalog.poll` finds what changed since the previous fetch or poll:

* with ``INFORMATION_SCHEMA``: one light query for every table's ``LAST_ALTERED``; tables no
  longer listed are **removed**, new ones **added**, and those whose ``LAST_ALTERED`` moved are
  re-read;
* with ``ACCOUNT_USAGE``: only rows with ``LAST_ALTERED`` or ``DELETED`` after the last seen
  timestamp minus ``lag`` (those views lag behind by up to hours); a name with only deleted rows
  is **removed**.

Re-read tables whose columns, comments or keys differ are **updated**; the others are only
``touched`` (``LAST_ALTERED`` also moves on DML) and cost nothing downstream. The returned
:class:`CatalogChanges` carries the new :class:`SourceSchema` and its :class:`SourceDiff`, ready
for an incremental index update. Foreign keys are inferred from ``<X>_ID`` columns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict, Unpack

from sqlalchemy import Connection, Engine, bindparam, text
from sqlalchemy.exc import SQLAlchemyError

from schemaseek.errors import ConfigError, SourceError
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.diff import SourceDiff, diff_sources
from schemaseek.sources.engines import create_engine, parse_url
from schemaseek.sources.records import TableRecord
from schemaseek.sources.redact import Secrets, redact_url, redacting_loggers
from schemaseek.sources.sql import DocumentMode, InferMode, build_sql_schema, table_signature
from schemaseek.sources.table_filters import TableFilter

__all__ = ["CatalogChanges", "SnowflakeCatalog"]

_QUALIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$")
_TABLE_COLUMNS = "TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, COMMENT, LAST_ALTERED"
_COLUMN_COLUMNS = (
    "TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, "
    "IS_NULLABLE, COMMENT"
)


@dataclass(frozen=True, slots=True)
class _Listed:
    catalog: str
    schema: str
    name: str
    is_view: bool
    comment: str
    altered: datetime | None

    @property
    def id(self) -> str:
        return f"{self.catalog}.{self.schema}.{self.name}"


@dataclass(frozen=True, slots=True)
class CatalogChanges:
    """What one poll found (table ids, sorted), with the resulting schema and document diff."""

    added: tuple[str, ...]
    updated: tuple[str, ...]
    removed: tuple[str, ...]
    touched: tuple[str, ...]
    schema: SourceSchema
    diff: SourceDiff

    @property
    def empty(self) -> bool:
        """True when no table was added, updated or removed."""
        return not (self.added or self.updated or self.removed)


class CatalogOptions(TypedDict, total=False):
    """The keyword options of :class:`SnowflakeCatalog` (see its constructor)."""

    qualifier: str
    account_usage: bool
    schemas: Sequence[str]
    allow: Iterable[str]
    block: Iterable[str]
    default_block: bool
    documents: DocumentMode
    infer: InferMode
    lag: timedelta | None
    batch: int
    max_columns: int | None
    timeout_s: float | None


class SnowflakeCatalog:
    """A Snowflake (or look-alike) catalog read through its metadata views (module docstring)."""

    def __init__(
        self,
        engine: Engine,
        source: str,
        *,
        qualifier: str = "INFORMATION_SCHEMA",
        account_usage: bool = False,
        schemas: Sequence[str] = (),
        allow: Iterable[str] = (),
        block: Iterable[str] = (),
        default_block: bool = True,
        documents: DocumentMode = "bounded",
        infer: InferMode = "auto",
        lag: timedelta | None = None,
        batch: int = 500,
        max_columns: int | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if not _QUALIFIER.match(qualifier):
            raise ConfigError(f"invalid view qualifier {qualifier!r}: use NAME or DB.NAME")
        self.engine = engine
        self.source = source
        self.qualifier = qualifier
        self.account_usage = account_usage
        self.schemas = tuple(schemas)
        self.table_filter = TableFilter.create(allow, block, default_block)
        self.documents: DocumentMode = documents
        self.infer: InferMode = infer
        self.lag = lag if lag is not None else timedelta(hours=3 if account_usage else 0)
        self.batch = batch
        self.max_columns = max_columns
        self.timeout_s = timeout_s
        self.schema: SourceSchema | None = None
        self._tables: dict[str, TableRecord] = {}
        self._altered: dict[str, datetime | None] = {}
        self._watermark: datetime | None = None
        self._secrets = Secrets()
        self._secrets.add_url(engine.url)
        self._safe = redact_url(engine.url)

    @classmethod
    def from_url(
        cls, url: str, source: str | None = None, **options: Unpack[CatalogOptions]
    ) -> SnowflakeCatalog:
        """A catalog on a new engine (``snowflake://user:password@account/db?warehouse=...``);
        the keywords are the constructor's. ``source`` defaults to the URL's database."""
        secrets = Secrets()
        parsed = parse_url(url, secrets)
        engine = create_engine(parsed, redact_url(parsed), secrets)
        return cls(engine, source or str(parsed.database or "snowflake"), **options)

    # -- SQL ---------------------------------------------------------------------------------

    def _where(self) -> str:
        clause = " WHERE UPPER(TABLE_SCHEMA) <> 'INFORMATION_SCHEMA'"
        if self.schemas:
            clause += " AND TABLE_SCHEMA IN :schemas"
        return clause

    def _run(self, conn: Connection, sql: str, params: Mapping[str, Any]) -> list[Any]:
        """Rows of ``sql`` with bind ``params``; ``schemas`` and ``names`` bind as lists."""
        statement = text(sql)
        for name in ("schemas", "names"):
            if name in params:
                statement = statement.bindparams(bindparam(name, expanding=True))
        return list(conn.execute(statement, dict(params)))

    def _list(self, conn: Connection, since: datetime | None) -> tuple[list[_Listed], set[str]]:
        """Live tables that pass the filter, and ids seen only as deleted (account usage)."""
        params: dict[str, Any] = {"schemas": list(self.schemas)} if self.schemas else {}
        extra = ", DELETED" if self.account_usage else ""
        sql = f"SELECT {_TABLE_COLUMNS}{extra} FROM {self.qualifier}.TABLES{self._where()}"
        if self.account_usage and since is not None:
            sql += " AND (LAST_ALTERED > :since OR DELETED > :since)"
            params["since"] = since
        elif self.account_usage:
            sql += " AND DELETED IS NULL"
        live: dict[str, _Listed] = {}
        deleted: set[str] = set()
        for row in self._run(conn, sql, params):
            item = _Listed(
                str(row[0]),
                str(row[1]),
                str(row[2]),
                "VIEW" in str(row[3] or "").upper(),
                str(row[4] or ""),
                row[5],
            )
            if not self.table_filter.allows(item.id):
                continue
            if self.account_usage and row[6] is not None:
                deleted.add(item.id)
                self._advance(row[6])
            else:
                newer = live.get(item.id)
                if newer is None or _later(item.altered, newer.altered):
                    live[item.id] = item
            self._advance(item.altered)
        return list(live.values()), deleted - set(live)

    def _columns(self, conn: Connection, listed: Sequence[_Listed]) -> dict[str, TableRecord]:
        """Table records (``raw["tables"]`` layout) for ``listed``, columns read in batches."""
        tables = {item.id: _table(item) for item in listed}
        groups: dict[tuple[str, str], list[str]] = {}
        for item in listed:
            groups.setdefault((item.catalog, item.schema), []).append(item.name)
        deleted = " AND DELETED IS NULL" if self.account_usage else ""
        sql = (
            f"SELECT {_COLUMN_COLUMNS} FROM {self.qualifier}.COLUMNS WHERE TABLE_CATALOG = "
            f":catalog AND TABLE_SCHEMA = :schema AND TABLE_NAME IN :names{deleted} "
            "ORDER BY TABLE_NAME, ORDINAL_POSITION"
        )
        for (catalog, schema), names in sorted(groups.items()):
            for start in range(0, len(names), self.batch):
                chunk = sorted(names[start : start + self.batch])
                params = {"catalog": catalog, "schema": schema, "names": chunk}
                rows = self._run(conn, sql, params)
                for row in rows:
                    table = tables.get(f"{row[0]}.{row[1]}.{row[2]}")
                    if table is not None:
                        table["columns"].append(
                            {
                                "name": str(row[3]),
                                "type": str(row[5] or ""),
                                "description": str(row[7] or "").strip(),
                                "primary_key": False,
                                "nullable": str(row[6]).upper() != "NO",
                            }
                        )
        return tables

    # -- fetch and poll ------------------------------------------------------------------------

    def fetch(self) -> SourceSchema:
        """Read the whole (filtered) catalog; the state later polls compare against."""
        with self._session() as conn:
            listed, _ = self._list(conn, None)
            self._tables = self._columns(conn, listed)
        self._altered = {item.id: item.altered for item in listed}
        self.schema = self._build()
        return self.schema

    def poll(self) -> CatalogChanges:
        """Tables added, updated and removed since the last fetch or poll (module docstring)."""
        old = self.schema
        if old is None:
            schema = self.fetch()
            diff = diff_sources(_empty(schema), schema)
            return CatalogChanges(tuple(sorted(self._tables)), (), (), (), schema, diff)
        since = None
        if self.account_usage and self._watermark is not None:
            since = self._watermark - self.lag
        watermark = self._watermark
        try:
            with self._session() as conn:
                listed, deleted = self._list(conn, since)
                fresh, removed, moved = self._changed(conn, listed, deleted)
        except BaseException:
            self._watermark = watermark  # nothing was applied: the next poll starts here
            raise
        return self._apply(old, fresh, removed, moved)

    def _changed(
        self, conn: Connection, listed: list[_Listed], deleted: set[str]
    ) -> tuple[dict[str, TableRecord], list[str], list[_Listed]]:
        """Columns of the tables that moved, the ids removed, and the moved listings."""
        if self.account_usage:
            removed = sorted(deleted & set(self._tables))
        else:
            removed = sorted(set(self._tables) - {item.id for item in listed})
        moved = [
            item
            for item in listed
            if item.id not in self._altered or self._altered[item.id] != item.altered
        ]
        return self._columns(conn, moved), removed, moved

    def _apply(
        self,
        old: SourceSchema,
        fresh: dict[str, TableRecord],
        removed: list[str],
        moved: list[_Listed],
    ) -> CatalogChanges:
        added = sorted(i for i in fresh if i not in self._tables)
        updated = sorted(
            i
            for i, t in fresh.items()
            if i in self._tables and table_signature(t) != table_signature(self._tables[i])
        )
        touched = sorted(i for i in fresh if i in self._tables and i not in updated)
        for table_id in removed:
            self._tables.pop(table_id, None)
            self._altered.pop(table_id, None)
        self._tables.update(fresh)
        self._altered.update({item.id: item.altered for item in moved})
        self.schema = self._build()
        diff = diff_sources(old, self.schema)
        return CatalogChanges(
            tuple(added), tuple(updated), tuple(removed), tuple(touched), self.schema, diff
        )

    def _build(self) -> SourceSchema:
        tables = [self._tables[i] for i in sorted(self._tables)]
        schema = build_sql_schema(
            tables, self.source, documents=self.documents, infer=self.infer,
            max_columns=self.max_columns,
        )  # fmt: skip
        schema.raw["url"] = self._safe
        return schema

    def _advance(self, moment: datetime | None) -> None:
        if moment is not None and _later(moment, self._watermark):
            self._watermark = moment

    def _session(self) -> _Session:
        return _Session(self)


class _Session:
    """A connection with secrets scrubbed from logs and errors turned into SourceError."""

    def __init__(self, catalog: SnowflakeCatalog) -> None:
        self.catalog = catalog
        self._redacting = redacting_loggers(catalog._secrets)
        self._conn: Connection | None = None

    def __enter__(self) -> Connection:
        self._redacting.__enter__()
        try:
            self._conn = self.catalog.engine.connect()
            if self.catalog.timeout_s is not None:
                _statement_timeout(self._conn, self.catalog.timeout_s)
        except SQLAlchemyError as exc:
            self._redacting.__exit__(None, None, None)
            raise self._error(exc) from None
        return self._conn

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        try:
            if self._conn is not None:
                self._conn.close()
        finally:
            self._redacting.__exit__(None, None, None)
        if isinstance(exc, SQLAlchemyError):
            raise self._error(exc) from None

    def _error(self, exc: SQLAlchemyError) -> SourceError:
        message = self.catalog._secrets.scrub(str(exc)).splitlines()[0]
        return SourceError(f"cannot read the Snowflake catalog of {self.catalog._safe}: {message}")


def _statement_timeout(conn: Connection, seconds: float) -> None:
    """Bound every catalog query of this session (``SNOWFLAKE_TIMEOUT_MS``)."""
    dialect = conn.dialect.name
    if dialect == "snowflake":
        limit = max(1, round(seconds))
        conn.exec_driver_sql(f"ALTER SESSION SET STATEMENT_TIMEOUT_IN_SECONDS = {limit}")
    elif dialect == "postgresql":  # the tests' stand-in for the catalog views
        conn.exec_driver_sql(f"SET statement_timeout = {max(1, round(seconds * 1000))}")


def _later(a: datetime | None, b: datetime | None) -> bool:
    if a is None:
        return False
    return b is None or a > b


def _table(item: _Listed) -> TableRecord:
    return {
        "id": item.id,
        "name": item.name,
        "schema": item.schema,
        "database": item.catalog,
        "is_view": item.is_view,
        "description": item.comment.strip(),
        "columns": [],
        "primary_key": [],
        "foreign_keys": [],
    }


def _empty(like: SourceSchema) -> SourceSchema:
    return SourceSchema(like.name, like.kind, [], [], "")
