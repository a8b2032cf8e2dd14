"""Snowflake incremental refresh, run against PostgreSQL views with Snowflake's names and columns.

The database gets event triggers that log every DDL command with its time, and two schemas of
views over the real catalog: ``snowflake_sim`` (INFORMATION_SCHEMA's ``TABLES`` and
``COLUMNS``, with ``LAST_ALTERED`` from the log) and ``snowflake_usage`` (ACCOUNT_USAGE's, with
``DELETED`` for dropped tables). :class:`SnowflakeCatalog` reads them through the same SQL it
sends to Snowflake.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy

from schemaseek.errors import ConfigError, SourceError
from schemaseek.sources.snowflake import SnowflakeCatalog

pytestmark = pytest.mark.services

SIMULATION = """
CREATE SCHEMA snowflake_sim;
CREATE SCHEMA snowflake_usage;
CREATE TABLE snowflake_sim.ddl_log (
    schema_name text, table_name text, at timestamptz, dropped boolean);
CREATE FUNCTION snowflake_sim.log_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() LOOP
    INSERT INTO snowflake_sim.ddl_log
      SELECT n.nspname, c.relname, clock_timestamp(), false
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.oid = r.objid AND r.classid = 'pg_class'::regclass;
  END LOOP;
END $$;
CREATE FUNCTION snowflake_sim.log_drop() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_dropped_objects()
           WHERE object_type IN ('table', 'view') LOOP
    INSERT INTO snowflake_sim.ddl_log
      VALUES (r.schema_name, r.object_name, clock_timestamp(), true);
  END LOOP;
END $$;
CREATE EVENT TRIGGER sim_ddl ON ddl_command_end EXECUTE FUNCTION snowflake_sim.log_ddl();
CREATE EVENT TRIGGER sim_drop ON sql_drop EXECUTE FUNCTION snowflake_sim.log_drop();
CREATE VIEW snowflake_sim.tables AS
SELECT t.table_catalog::text AS table_catalog, t.table_schema::text AS table_schema,
       t.table_name::text AS table_name, t.table_type::text AS table_type,
       obj_description(format('%I.%I', t.table_schema, t.table_name)::regclass) AS comment,
       coalesce((SELECT max(l.at) FROM snowflake_sim.ddl_log l
                 WHERE l.schema_name = t.table_schema AND l.table_name = t.table_name
                   AND NOT l.dropped), timestamptz '2000-01-01') AS last_altered
FROM information_schema.tables t
WHERE t.table_schema NOT IN ('pg_catalog', 'information_schema', 'snowflake_sim',
                             'snowflake_usage');
CREATE VIEW snowflake_sim.columns AS
SELECT c.table_catalog::text AS table_catalog, c.table_schema::text AS table_schema,
       c.table_name::text AS table_name, c.column_name::text AS column_name,
       c.ordinal_position::int AS ordinal_position, upper(c.data_type) AS data_type,
       c.is_nullable::text AS is_nullable,
       col_description(format('%I.%I', c.table_schema, c.table_name)::regclass,
                       c.ordinal_position::int) AS comment
FROM information_schema.columns c
WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema', 'snowflake_sim',
                             'snowflake_usage');
CREATE VIEW snowflake_usage.tables AS
SELECT *, NULL::timestamptz AS deleted FROM snowflake_sim.tables
UNION ALL
SELECT current_database()::text, l.schema_name, l.table_name, 'BASE TABLE', NULL, l.at, l.at
FROM snowflake_sim.ddl_log l WHERE l.dropped;
CREATE VIEW snowflake_usage.columns AS
SELECT *, NULL::timestamptz AS deleted FROM snowflake_sim.columns;
"""

WAREHOUSE = """
CREATE SCHEMA sales;
CREATE SCHEMA crm;
CREATE TABLE crm.customer (customer_id integer, name text, segment text);
COMMENT ON TABLE crm.customer IS 'People and companies that buy from us.';
CREATE TABLE sales.orders (order_id integer, customer_id integer, product_id integer,
                           amount numeric(12, 2), ordered_at timestamp);
COMMENT ON COLUMN sales.orders.amount IS 'Order total in EUR.';
CREATE TABLE sales.dim_product (product_id integer, title text);
CREATE TABLE sales.temp_orders (order_id integer);
CREATE TABLE sales.region (region_id integer, name text);
"""


@pytest.fixture()
def warehouse(postgres_database: str) -> Iterator[sqlalchemy.Engine]:
    engine = sqlalchemy.create_engine(postgres_database)
    with engine.begin() as conn:
        raw = conn.execution_options(no_parameters=True)
        raw.exec_driver_sql(SIMULATION)
        raw.exec_driver_sql(WAREHOUSE)
    yield engine
    engine.dispose()


def run(engine: sqlalchemy.Engine, sql: str) -> None:
    with engine.begin() as conn:
        conn.execution_options(no_parameters=True).exec_driver_sql(sql)


@pytest.mark.parametrize("account_usage", [False, True], ids=["information_schema", "usage"])
def test_fetch_then_poll_changes(warehouse: sqlalchemy.Engine, account_usage: bool) -> None:
    qualifier = "snowflake_usage" if account_usage else "snowflake_sim"
    catalog = SnowflakeCatalog(
        warehouse, "wh", qualifier=qualifier, account_usage=account_usage, schemas=["sales", "crm"]
    )
    statements: list[tuple[str, dict[str, object]]] = []
    sqlalchemy.event.listen(
        warehouse,
        "before_cursor_execute",
        lambda _c, _k, sql, params, *_: statements.append((sql, params)),
    )
    db = warehouse.url.database
    schema = catalog.fetch()
    ids = {t["id"] for t in schema.raw["tables"]}
    assert ids == {f"{db}.sales.orders", f"{db}.crm.customer", f"{db}.sales.dim_product",
                   f"{db}.sales.region"}  # fmt: skip  # temp_orders: default blocklist
    docs = {d.id: d for d in schema.documents}
    orders = docs[f"{db}.sales.orders"]
    assert orders.data["database"] == db and orders.data["schema"] == "sales"
    assert "amount NUMERIC — Order total in EUR." in docs[f"{db}.sales.orders#measures"].members
    assert docs[f"{db}.crm.customer"].description == "People and companies that buy from us."
    edges = {(e.source, e.target, e.data["columns"][0]) for e in schema.edges}
    assert edges == {
        (f"{db}.sales.orders", f"{db}.crm.customer", "customer_id"),  # same database
        (f"{db}.sales.orders", f"{db}.sales.dim_product", "product_id"),  # DIM_X
    }
    assert all(e.data["inferred"] for e in schema.edges)
    assert not any("temp_orders" in str(p) for _, p in statements)  # never loaded

    nothing = catalog.poll()
    assert nothing.empty and nothing.diff.empty and nothing.touched == ()

    run(warehouse, "ALTER TABLE sales.orders ADD COLUMN status text")
    run(warehouse, "DROP TABLE sales.region")
    run(warehouse, "CREATE TABLE sales.returns (return_id integer, order_id integer)")
    run(warehouse, "COMMENT ON TABLE sales.dim_product IS NULL")  # DDL, nothing changes
    statements.clear()
    changes = catalog.poll()
    assert changes.added == (f"{db}.sales.returns",)
    assert changes.updated == (f"{db}.sales.orders",)
    assert changes.removed == (f"{db}.sales.region",)
    assert changes.touched == (f"{db}.sales.dim_product",)
    column_reads = [p for sql, p in statements if "COLUMNS" in sql]
    read = sorted(str(v) for p in column_reads for k, v in p.items() if k.startswith("names"))
    assert read == ["dim_product", "orders", "returns"]  # only what moved is re-read
    diff = changes.diff
    assert diff.added_tables == (f"{db}.sales.returns",)
    assert diff.removed_tables == (f"{db}.sales.region",)
    assert diff.changed_tables == (f"{db}.sales.orders",)  # status: a new categorical facet
    assert (f"{db}.sales.returns", f"{db}.sales.orders") in {
        (e.source, e.target) for e in changes.schema.edges
    }
    assert catalog.poll().empty


def test_errors_and_bad_qualifier(warehouse: sqlalchemy.Engine) -> None:
    with pytest.raises(ConfigError, match="invalid view qualifier"):
        SnowflakeCatalog(warehouse, "wh", qualifier="x; DROP TABLE y")
    missing = SnowflakeCatalog(warehouse, "wh", qualifier="no_such_schema")
    with pytest.raises(SourceError, match="cannot read the Snowflake catalog"):
        missing.fetch()
