"""SQLAlchemy engines for SQL sources: parse a database URL and create its engine.

Shared by :mod:`schemaseek.sources.sql` and :mod:`schemaseek.sources.snowflake`. Both functions
register the URL's password with the caller's :class:`~schemaseek.sources.redact.Secrets`
first, so no error they raise shows it:

* :func:`parse_url`: :class:`SourceError` when the URL cannot be parsed;
* :func:`create_engine`: :class:`MissingExtraError` naming the schemaseek extra to install when
  the driver or dialect of a known backend is missing (PostgreSQL, MySQL/MariaDB, DuckDB,
  Snowflake), :class:`SourceError` for an unknown one, a SQLite file that does not exist or an
  invalid URL. A bare ``mysql://`` or ``mariadb://`` URL uses PyMySQL (the driver the ``mysql``
  extra installs) unless ``MySQLdb`` is installed, and a bare ``postgresql://`` URL psycopg 3
  (the ``postgres`` extra's) unless ``psycopg2`` is.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import sqlalchemy
from sqlalchemy import URL, Engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from schemaseek.errors import MissingExtraError, SourceError
from schemaseek.sources.redact import Secrets

__all__ = ["create_engine", "parse_url"]

# backend → (package to install, schemaseek extra that installs it)
_EXTRAS = {
    "postgresql": ("psycopg", "postgres"),
    "mysql": ("pymysql", "mysql"),
    "mariadb": ("pymysql", "mysql"),
    "duckdb": ("duckdb-engine", "duckdb"),
    "snowflake": ("snowflake-sqlalchemy", "snowflake"),
}


def parse_url(url: str, secrets: Secrets) -> URL:
    """``url`` as a SQLAlchemy URL, its password added to ``secrets`` (module docstring)."""
    secrets.add_url(url)
    try:
        return sqlalchemy.make_url(url)
    except ArgumentError:
        raise SourceError("invalid database URL: it could not be parsed") from None


def create_engine(url: URL, safe: str, secrets: Secrets) -> Engine:
    """An engine for ``url``; errors name it as ``safe`` (redacted) (module docstring)."""
    backend = url.get_backend_name()
    extra = _EXTRAS.get(backend)
    if url.drivername in ("mysql", "mariadb") and find_spec("MySQLdb") is None:
        url = url.set(drivername=f"{url.drivername}+pymysql")  # the driver the extra installs
    if url.drivername in ("postgresql", "postgres") and find_spec("psycopg2") is None:
        url = url.set(drivername="postgresql+psycopg")  # the driver the postgres extra installs
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
    except AttributeError as exc:  # a dialect package that does not fit this SQLAlchemy
        raise SourceError(
            f"{safe}: the {backend} dialect failed to load ({exc}); check that its package "
            "supports the installed SQLAlchemy"
        ) from None
    except NoSuchModuleError as exc:
        if extra is None:
            raise SourceError(f"{safe}: no SQLAlchemy dialect for '{url.drivername}'") from exc
        raise MissingExtraError(extra[0], extra[1]) from exc
    except ArgumentError as exc:
        raise SourceError(f"{safe}: invalid database URL: {secrets.scrub(str(exc))}") from None
