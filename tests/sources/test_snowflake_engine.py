"""A Snowflake source wired into an engine: after the first full read, each refresh is one
incremental catalog query (plus the columns of the tables that moved), never a reflection; a
dropped table and a renamed column reach the index. Run on the PostgreSQL simulation of the
catalog views (:mod:`tests.sources.test_snowflake_sim`)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import sqlalchemy

from schemaseek.engine import SourceEngine
from schemaseek.sources.snowflake_source import SnowflakeSource
from tests.engine.fakes import HashProvider
from tests.sources.test_snowflake_sim import run, warehouse  # noqa: F401 (fixture)

pytestmark = pytest.mark.services


def watched(source: SnowflakeSource) -> list[tuple[str, dict[str, object]]]:
    statements: list[tuple[str, dict[str, object]]] = []
    sqlalchemy.event.listen(
        source.engine,
        "before_cursor_execute",
        lambda _c, _k, sql, params, *_: statements.append((sql, dict(params or {}))),
    )
    return statements


@pytest.mark.parametrize("mode", ["account_usage", "information_schema"])
def test_refresh_is_one_incremental_query(
    warehouse: sqlalchemy.Engine,  # noqa: F811
    mode: str,
) -> None:
    url = warehouse.url.render_as_string(hide_password=False)
    source = SnowflakeSource(
        url, "wh", account_usage=mode == "account_usage", usage_views="snowflake_usage",
        catalog_views="snowflake_sim", usage_lag_s=0, schemas=["sales", "crm"], timeout_s=30,
    )  # fmt: skip
    statements = watched(source)
    provider = HashProvider()
    engine = SourceEngine("wh", source, provider=provider)
    try:
        check_refresh(warehouse, source, engine, provider, statements, mode)
    finally:
        engine.destroy()
        source.engine.dispose()


def check_refresh(
    warehouse: sqlalchemy.Engine,  # noqa: F811
    source: SnowflakeSource,
    engine: SourceEngine,
    provider: HashProvider,
    statements: list[tuple[str, dict[str, object]]],
    mode: str,
) -> None:
    db = warehouse.url.database
    engine.init(wait=True)
    assert source.mode == mode
    assert engine.index.get(f"{db}.sales.region") is not None
    provider.reset()
    statements.clear()

    run(warehouse, "DROP TABLE sales.region")
    run(warehouse, "ALTER TABLE sales.orders RENAME COLUMN amount TO total_amount")
    report = engine.refresh().result(60)

    catalog_sql = [sql for sql, _ in statements if "TABLES" in sql or "COLUMNS" in sql]
    listings = [sql for sql in catalog_sql if ".TABLES" in sql]
    assert len(listings) == 1  # one incremental query for what changed
    if mode == "account_usage":
        assert "LAST_ALTERED > %(since)s OR DELETED > %(since)s" in listings[0]
    column_reads = [p for sql, p in statements if ".COLUMNS" in sql]
    names = sorted(str(v) for p in column_reads for k, v in p.items() if k.startswith("names"))
    assert names == ["orders"]  # only the altered table's columns are read again
    assert not any("pg_catalog" in sql or "pg_class" in sql for sql, _ in statements)
    assert source.last_changes is not None
    assert source.last_changes.removed == (f"{db}.sales.region",)
    assert source.last_changes.updated == (f"{db}.sales.orders",)
    assert engine.index.get(f"{db}.sales.region") is None
    members = [
        m for d in engine.index.documents.values() if d.id.startswith(f"{db}.sales.orders")
        for m in d.members
    ]  # fmt: skip
    assert any(m.startswith("total_amount") for m in members)
    assert not any(m.startswith("amount") for m in members)
    assert report.removed >= 1 and report.embedded == provider.embedded_documents > 0
    assert report.embedded < engine.index.document_count  # only what changed


@pytest.fixture()
def reader(warehouse: sqlalchemy.Engine) -> Iterator[str]:  # noqa: F811
    """A role that may read the INFORMATION_SCHEMA look-alike but not ACCOUNT_USAGE's."""
    role = f"reader_{secrets.token_hex(3)}"
    run(
        warehouse,
        f"CREATE ROLE {role} LOGIN; GRANT USAGE ON SCHEMA snowflake_sim, sales, crm TO {role};"
        f" GRANT SELECT ON ALL TABLES IN SCHEMA snowflake_sim, sales, crm TO {role};",
    )
    try:
        yield warehouse.url.set(username=role).render_as_string(hide_password=False)
    finally:
        run(warehouse, f"DROP OWNED BY {role}; DROP ROLE {role}")


def test_information_schema_when_the_role_cannot_read_account_usage(
    warehouse: sqlalchemy.Engine,  # noqa: F811
    reader: str,
) -> None:
    source = SnowflakeSource(
        reader, "wh", usage_views="snowflake_usage", catalog_views="snowflake_sim",
        schemas=["sales", "crm"],
    )  # fmt: skip
    try:
        schema = source()
    finally:
        source.engine.dispose()
    assert source.mode == "information_schema"
    assert {t["name"] for t in schema.raw["tables"]} == {
        "orders", "customer", "dim_product", "region",
    }  # fmt: skip
