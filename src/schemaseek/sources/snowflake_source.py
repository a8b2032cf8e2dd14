"""A Snowflake source an engine polls: the whole catalog once, then only what changed.

:class:`SnowflakeSource` is a fetch function (``source()`` returns a :class:`SourceSchema`) that
keeps one :class:`~schemaseek.sources.snowflake.SnowflakeCatalog` between calls: the first call
reads the whole (allow/block-filtered) catalog, every later call is one incremental poll
(``LAST_ALTERED > :since OR DELETED > :since`` on ``ACCOUNT_USAGE``; ``LAST_ALTERED`` of every
table on ``INFORMATION_SCHEMA``) plus the columns of the tables that moved. The engine then
diffs documents by content hash and embeds only those that changed.

``account_usage=None`` (the default) uses ``ACCOUNT_USAGE`` when the role can read it and falls
back to ``INFORMATION_SCHEMA`` when it cannot (the first read fails: no grant on the shared
``SNOWFLAKE`` database, or the views are absent); ``True`` or ``False`` forces one of them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import timedelta

from sqlalchemy import Engine

from schemaseek.errors import SourceError
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.engines import create_engine, parse_url
from schemaseek.sources.redact import Secrets, redact_url
from schemaseek.sources.snowflake import CatalogChanges, SnowflakeCatalog

__all__ = ["SnowflakeSource"]

logger = logging.getLogger(__name__)

ACCOUNT_USAGE = "SNOWFLAKE.ACCOUNT_USAGE"


class SnowflakeSource:
    """See the module docstring; the keywords not named here are :class:`SnowflakeCatalog`'s.

    Args:
        url: ``snowflake://user:password@account/database?warehouse=...&role=...`` (or any
            SQLAlchemy URL of a database that has look-alike views, as the tests do).
        name: the source's name.
        usage_views / catalog_views: where the two sets of views are.
        usage_lag_s: how far back an ``ACCOUNT_USAGE`` poll looks before the last change seen
            (the views lag; default 3 hours).
        engine: an existing engine (``url`` then only names it in messages).
    """

    def __init__(
        self,
        url: str,
        name: str,
        *,
        account_usage: bool | None = None,
        usage_views: str = ACCOUNT_USAGE,
        catalog_views: str = "INFORMATION_SCHEMA",
        usage_lag_s: float | None = None,
        schemas: Sequence[str] = (),
        allow: Iterable[str] = (),
        block: Iterable[str] = (),
        max_columns: int | None = None,
        timeout_s: float | None = None,
        engine: Engine | None = None,
    ) -> None:
        self._secrets = Secrets()
        self._parsed = parse_url(url, self._secrets)
        self.url = redact_url(self._parsed)
        self.name = name
        self._engine = engine
        self.account_usage = account_usage
        self.usage_views = usage_views
        self.catalog_views = catalog_views
        self.lag = timedelta(seconds=usage_lag_s) if usage_lag_s is not None else None
        self.schemas = tuple(schemas)
        self.allow = tuple(allow)
        self.block = tuple(block)
        self.max_columns = max_columns
        self.timeout_s = timeout_s
        self.catalog: SnowflakeCatalog | None = None
        self.last_changes: CatalogChanges | None = None

    @property
    def engine(self) -> Engine:
        """The database engine, created on first use (planning a source connects nothing)."""
        if self._engine is None:
            self._engine = create_engine(self._parsed, self.url, self._secrets)
        return self._engine

    @property
    def mode(self) -> str | None:
        """``account_usage`` or ``information_schema`` once the first fetch chose; else None."""
        if self.catalog is None:
            return None
        return "account_usage" if self.catalog.account_usage else "information_schema"

    def __call__(self) -> SourceSchema:
        if self.catalog is None:
            return self._first_fetch()
        changes = self.catalog.poll()
        self.last_changes = changes
        if not changes.empty:
            logger.info(
                "snowflake source %r: %d added, %d updated, %d removed (%s)", self.name,
                len(changes.added), len(changes.updated), len(changes.removed), self.mode,
            )  # fmt: skip
        return changes.schema

    def _catalog(self, usage: bool) -> SnowflakeCatalog:
        return SnowflakeCatalog(
            self.engine, self.name, qualifier=self.usage_views if usage else self.catalog_views,
            account_usage=usage, schemas=self.schemas, allow=self.allow, block=self.block,
            lag=self.lag if usage else None, max_columns=self.max_columns,
            timeout_s=self.timeout_s,
        )  # fmt: skip

    def _first_fetch(self) -> SourceSchema:
        if self.account_usage is not False:
            catalog = self._catalog(True)
            try:
                schema = catalog.fetch()
            except SourceError as exc:
                if self.account_usage:
                    raise
                logger.warning(
                    "snowflake source %r: %s is not readable with this role (%s); polling "
                    "%s instead", self.name, self.usage_views, exc, self.catalog_views,
                )  # fmt: skip
            else:
                self.catalog = catalog
                return schema
        catalog = self._catalog(False)
        schema = catalog.fetch()
        self.catalog = catalog
        return schema
