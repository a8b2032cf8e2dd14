"""Which schemas a SQL source reads: every non-system schema unless the caller names some.

* **PostgreSQL**: every schema but ``information_schema`` and the ``pg_`` ones (``pg_catalog``,
  ``pg_toast``, ``pg_temp_N`` ...: PostgreSQL reserves the prefix for itself).
* **MariaDB / MySQL** (a schema is a database): the database of the URL, or, when the URL names
  none, every database but ``information_schema``, ``mysql``, ``performance_schema`` and
  ``sys``.
* **Others** (SQLite, DuckDB, Snowflake ...): the default schema.

Allow and block lists (:mod:`schemaseek.sources.table_filters`) narrow what is read further.
A schema the caller names that does not exist is an error that lists the ones that do, rather
than an empty source.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy
from sqlalchemy import Connection

from schemaseek.errors import ConfigError
from schemaseek.sources.table_filters import TableFilter

__all__ = ["MYSQL_SYSTEM_SCHEMAS", "schemas_to_read"]

MYSQL_SYSTEM_SCHEMAS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
_CHECKED = ("postgresql", "mysql", "mariadb", "sqlite")


def schemas_to_read(
    conn: Connection, requested: Sequence[str] | None, where: str, table_filter: TableFilter
) -> Sequence[str | None]:
    """The schemas to reflect (``None``: the connection's default one); by default, those
    where ``table_filter``'s allowlist can match a table.

    Raises:
        ConfigError: a requested schema does not exist (PostgreSQL, MariaDB/MySQL, SQLite);
            the message names ``where`` (the redacted URL) and the schemas there are.
    """
    dialect = conn.dialect.name
    if requested:
        if dialect in _CHECKED:
            _check_exist(conn, requested, where)
        return list(requested)
    if dialect == "postgresql":
        names = sqlalchemy.inspect(conn).get_schema_names()
        kept = [n for n in names if n != "information_schema" and not n.startswith("pg_")]
    elif dialect in ("mysql", "mariadb") and not conn.engine.url.database:
        names = sqlalchemy.inspect(conn).get_schema_names()
        kept = [n for n in names if n.lower() not in MYSQL_SYSTEM_SCHEMAS]
    else:
        return [None]
    return sorted(n for n in kept if table_filter.may_allow_schema(n))


def _check_exist(conn: Connection, requested: Sequence[str], where: str) -> None:
    names = sqlalchemy.inspect(conn).get_schema_names()
    known = {name.casefold() for name in names}
    missing = [name for name in requested if name.casefold() not in known]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        listed = ", ".join(repr(name) for name in missing)
        there = ", ".join(sorted(names)) or "none"
        raise ConfigError(f"{where}: no schema{plural} {listed} (schemas there: {there})")
