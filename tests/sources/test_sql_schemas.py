"""Which schemas a SQL source reads with no option: every non-system one (real PostgreSQL and
MariaDB), narrowed by allow/block lists; a schema that does not exist is an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import sqlalchemy

from schemaseek.errors import ConfigError
from schemaseek.sources.schemas import schemas_to_read
from schemaseek.sources.sql import load_sql
from schemaseek.sources.table_filters import TableFilter

SALES = [
    "CREATE SCHEMA sales",
    "CREATE TABLE public.currency (code char(3) PRIMARY KEY, name text)",
    "CREATE TABLE sales.customers (id int PRIMARY KEY, name text, country text)",
    "CREATE TABLE sales.orders (id int PRIMARY KEY, customer_id int REFERENCES sales.customers,"
    " currency char(3) REFERENCES public.currency, total numeric)",
    "COMMENT ON TABLE sales.orders IS 'Customer orders with their totals'",
    "CREATE VIEW sales.big_orders AS SELECT * FROM sales.orders WHERE total > 1000",
]


def _execute(url: str, statements: list[str]) -> None:
    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
    finally:
        engine.dispose()


def test_postgresql_reads_every_non_system_schema(postgres_database: str) -> None:
    _execute(postgres_database, SALES)
    schema = load_sql(postgres_database, "shop")
    ids = {table["id"] for table in schema.raw["tables"]}
    assert ids == {"public.currency", "sales.customers", "sales.orders", "sales.big_orders"}
    keys = {(edge.source, edge.target) for edge in schema.edges}
    assert ("sales.orders", "sales.customers") in keys
    assert ("sales.orders", "public.currency") in keys
    # allow/block lists and --schema narrow it
    only_sales = load_sql(postgres_database, "shop", allow=["sales."], block=["re:big_"])
    assert {t["id"] for t in only_sales.raw["tables"]} == {"sales.customers", "sales.orders"}
    public = load_sql(postgres_database, "shop", ["public"])
    assert {t["id"] for t in public.raw["tables"]} == {"public.currency"}


def test_a_schema_that_does_not_exist_is_an_error(postgres_database: str) -> None:
    _execute(postgres_database, SALES)
    with pytest.raises(ConfigError, match=r"no schema 'nope' \(schemas there: .*public, sales"):
        load_sql(postgres_database, "shop", ["sales", "nope"])


def test_the_cli_indexes_a_database_outside_public_with_no_option(postgres_database: str) -> None:
    _execute(postgres_database, SALES)
    env = {**os.environ, "SCHEMASEEK_RERANKER": "none"}
    run = [sys.executable, "-m", "schemaseek", "index", "--database-url", postgres_database]
    done = subprocess.run(
        [*run, "--json"], capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["documents"] == len(load_sql(postgres_database).documents)
    assert json.loads(done.stdout)["documents"] >= 4
    nope = subprocess.run(
        [*run, "--schema", "nope"], capture_output=True, text=True, timeout=300, env=env
    )
    assert nope.returncode == 2
    assert nope.stderr.startswith("error: ") and nope.stderr.count("\n") == 1, nope.stderr
    assert "no schema 'nope'" in nope.stderr and "Traceback" not in nope.stderr


def test_mariadb_reads_the_url_database_or_every_non_system_one(
    mariadb_url: str, mariadb_prefix: str
) -> None:
    first, second = f"{mariadb_prefix}shop", f"{mariadb_prefix}crm"
    _execute(
        mariadb_url,
        [
            f"CREATE DATABASE `{first}`",
            f"CREATE DATABASE `{second}`",
            f"CREATE TABLE `{first}`.orders (id int PRIMARY KEY, total decimal(10, 2))",
            f"CREATE TABLE `{second}`.contacts (id int PRIMARY KEY, email text)",
        ],
    )
    schemas = sqlalchemy.create_engine(mariadb_url)
    try:
        with schemas.connect() as conn:
            read = schemas_to_read(conn, None, "server", TableFilter())
            narrowed = schemas_to_read(conn, None, "server", TableFilter((f"{first}.",)))
    finally:
        schemas.dispose()
    assert {first, second} <= set(read)
    assert not {"mysql", "sys", "information_schema", "performance_schema"} & set(read)
    assert narrowed == [first]
    # the allowlist keeps other tests' databases unread (they may come and go meanwhile)
    both = load_sql(mariadb_url, "all", allow=[f"{mariadb_prefix}"])
    assert {t["id"] for t in both.raw["tables"]} == {f"{first}.orders", f"{second}.contacts"}
    one = sqlalchemy.make_url(mariadb_url).set(database=first).render_as_string(False)
    assert {t["id"] for t in load_sql(one, "shop").raw["tables"]} == {f"{first}.orders"}
