"""Allow and block lists: prefixes and regexes, blocklist wins, defaults, applied at fetch time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy

from schemaseek.errors import ConfigError
from schemaseek.sources.sql import load_sql
from schemaseek.sources.table_filters import DEFAULT_BLOCKLIST, TableFilter

BLOCKED = [
    "TEMP_ORDERS", "tmp", "DB.TEST.SALES", "staging_2024", "ROLLBACK1", "s.temp-copy",
    "T1", "T1_ORDERS", "x2_copy", "FACTS.PROD.Z10_BACKUP", "test",
]  # fmt: skip
KEPT = [
    "TEMPERATURE", "TESTIMONIALS", "TMPL", "public.orders", "db1.orders", "ABC1_X", "T_1",
    "FACTS.PROD.DIM_CONTRACT", "sales.contest", "s.latest", "EPA.PM25_DAILY", "SO2_HOURLY",
    "O3_DAILY_SUMMARY", "GNOMAD.V2_1_1_EXOMES__CHR1", "CS10_GFF", "T1000", "t1.orders",
]  # fmt: skip


@pytest.mark.parametrize("table_id", BLOCKED)
def test_default_blocklist_blocks_scratch_names(table_id: str) -> None:
    assert not TableFilter().allows(table_id)
    assert TableFilter().blocked_by(table_id) in DEFAULT_BLOCKLIST


@pytest.mark.parametrize("table_id", KEPT)
def test_default_blocklist_keeps_real_names(table_id: str) -> None:
    assert TableFilter().allows(table_id)


def test_allow_block_prefix_regex_and_precedence() -> None:
    rules = TableFilter.create(allow=["FACTS.PROD", "re:^sales\\."], block=["re:_backup$"])
    assert rules.allows("facts.prod.dim_contract")  # prefixes are case-insensitive
    assert rules.allows("sales.orders")
    assert not rules.allows("FACTS.DEV.DIM_CONTRACT")
    assert rules.blocked_by("FACTS.DEV.X") == "allowlist"
    assert not rules.allows("sales.orders_backup")  # the blocklist wins
    assert not rules.allows("FACTS.PROD.TEMP_X")  # defaults still apply
    assert TableFilter.create(default_block=False).allows("TEMP_X")
    assert TableFilter.none().allows("T1")
    with pytest.raises(ConfigError, match="invalid table filter regex"):
        TableFilter.create(block=["re:("])
    with pytest.raises(ConfigError, match="empty"):
        TableFilter.create(allow=[""])


def test_filters_apply_at_fetch_time(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER);"
            "CREATE TABLE customer (customer_id INTEGER PRIMARY KEY);"
            "CREATE TABLE temp_orders (id INTEGER);"
            "CREATE TABLE orders_backup (id INTEGER);"
            "CREATE TABLE t1_scratch (id INTEGER);"
        )
    conn.close()
    engine = sqlalchemy.create_engine(f"sqlite:///{path}")
    statements: list[str] = []
    sqlalchemy.event.listen(
        engine, "before_cursor_execute", lambda *args: statements.append(str(args[2]))
    )
    schema = load_sql("sqlite://", "w", engine=engine, block=["re:_backup$"])
    tables = {t["id"] for t in schema.raw["tables"]}
    assert tables == {"orders", "customer"}
    detail = [s for s in statements if "table_xinfo" in s or "foreign_key_list" in s]
    assert detail and not any("temp_orders" in s or "backup" in s or "t1_" in s for s in detail)
    only = load_sql("sqlite://", "w", engine=engine, allow=["cust"], default_block=False)
    assert {t["id"] for t in only.raw["tables"]} == {"customer"}
    everything = load_sql("sqlite://", "w", engine=engine, default_block=False)
    assert len(everything.raw["tables"]) == 5
    engine.dispose()
