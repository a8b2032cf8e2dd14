"""Fixtures of the source tests: the real services (PostgreSQL, MariaDB, Redis)."""

from tests.helpers.services import (  # noqa: F401 (fixtures are found by name)
    mariadb_prefix,
    mariadb_url,
    postgres_database,
    postgres_url,
    redis_address,
)
