"""SQL source on SQLite: tables, views, comment convention, keys, hash, demo catalog, errors."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy.pool import StaticPool

from schemaseek.documents import DocKind, Document
from schemaseek.errors import MissingExtraError, SourceError
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.records import ForeignKeyRecord, TableRecord
from schemaseek.sources.sql import (
    MAX_DESCRIBED_COLUMNS,
    foreign_key_edges,
    load_sql,
    parse_sqlite_comments,
)
from tests.helpers.records import table_record

CUSTOMER = """CREATE TABLE customer (
    -- People and companies that buy from us.
    -- Includes prospects.
    customer_id INTEGER PRIMARY KEY, -- Surrogate key.
    "display name" TEXT NOT NULL, -- Name shown on invoices -- never abbreviated.
    note TEXT DEFAULT '-- not a comment', -- Free text.
    region TEXT
);"""

WAREHOUSE = """CREATE TABLE warehouse (
    site_code TEXT NOT NULL, -- Site of the warehouse.
    bin_no INTEGER NOT NULL, -- Bin within the site.
    capacity REAL, -- Cubic metres.
    PRIMARY KEY (site_code, bin_no) -- trailing note on a constraint line
);"""

STOCK_MOVE = """CREATE TABLE stock_move (
    -- Movements of goods into and out of bins.
    move_id INTEGER PRIMARY KEY, -- Surrogate key of the move.
    customer_id INTEGER REFERENCES customer(customer_id), -- Buyer, if any.
    site_code TEXT NOT NULL,
    bin_no INTEGER NOT NULL,
    CONSTRAINT fk_bin FOREIGN KEY (site_code, bin_no) REFERENCES warehouse(site_code, bin_no)
);"""

VIEW = """CREATE VIEW busy_customer AS
-- Customers with at least one stock move.
SELECT c.customer_id, count(*) AS moves
FROM customer c JOIN stock_move m ON m.customer_id = c.customer_id
GROUP BY c.customer_id;"""

DDL = [CUSTOMER, WAREHOUSE, STOCK_MOVE, VIEW]


def _database(tmp_path: Path, statements: list[str], name: str = "shop.db") -> Path:
    path = tmp_path / name
    with sqlite3.connect(path) as conn:
        conn.executescript("\n".join(statements))
    conn.close()
    return path


def _docs(schema: SourceSchema) -> dict[str, Document]:
    return {d.id: d for d in schema.documents}


@pytest.fixture()
def shop(tmp_path: Path) -> SourceSchema:
    return load_sql(f"sqlite:///{_database(tmp_path, DDL)}", documents="single")


def test_tables_views_and_ids(shop: SourceSchema) -> None:
    assert shop.name == "shop" and shop.kind == "sql"
    docs = _docs(shop)
    assert set(docs) == {"customer", "warehouse", "stock_move", "busy_customer"}
    assert all(d.kind is DocKind.SQL_TABLE and d.source == "shop" for d in docs.values())
    assert docs["busy_customer"].data["is_view"] is True
    assert docs["customer"].data["is_view"] is False
    assert docs["customer"].data["schema"] is None
    assert docs["busy_customer"].description == "Customers with at least one stock move."


def test_comment_convention(shop: SourceSchema) -> None:
    customer = _docs(shop)["customer"]
    assert customer.name == "customer"
    assert customer.description == "People and companies that buy from us. Includes prospects."
    described = {c["name"]: c["description"] for c in customer.data["columns"]}
    assert described == {
        "customer_id": "Surrogate key.",
        "display name": "Name shown on invoices -- never abbreviated.",
        "note": "Free text.",
        "region": "",
    }
    assert customer.members == (
        "customer_id INTEGER — Surrogate key.",
        "display name TEXT — Name shown on invoices -- never abbreviated.",
        "note TEXT — Free text.",
        "region TEXT",
    )
    warehouse = _docs(shop)["warehouse"]
    assert warehouse.description == ""
    assert [c["description"] for c in warehouse.data["columns"]] == [
        "Site of the warehouse.", "Bin within the site.", "Cubic metres.",
    ]  # fmt: skip


def test_keys_and_edges(shop: SourceSchema) -> None:
    docs = _docs(shop)
    assert docs["warehouse"].data["primary_key"] == ["site_code", "bin_no"]
    columns = {c["name"]: c for c in docs["warehouse"].data["columns"]}
    assert columns["site_code"]["primary_key"] is True and columns["capacity"]["nullable"]
    assert columns["site_code"]["nullable"] is False
    edges = {(e.source, e.target): e.data for e in shop.edges}
    assert set(edges) == {("stock_move", "customer"), ("stock_move", "warehouse")}
    assert all(e.relation == "foreignKey" for e in shop.edges)
    assert edges[("stock_move", "warehouse")] == {
        "columns": ["site_code", "bin_no"],
        "ref_columns": ["site_code", "bin_no"],
        "inferred": False,
        "name": "fk_bin",
    }
    assert edges[("stock_move", "customer")]["columns"] == ["customer_id"]
    assert shop.raw["tables"][0]["id"] == "busy_customer"  # sorted by name
    assert foreign_key_edges(shop.raw["tables"]) == shop.edges


def test_hash_ignores_table_order_but_not_columns(tmp_path: Path) -> None:
    base = load_sql(f"sqlite:///{_database(tmp_path, DDL, 'a.db')}").schema_hash
    reordered = [WAREHOUSE, CUSTOMER, STOCK_MOVE, VIEW]
    assert load_sql(f"sqlite:///{_database(tmp_path, reordered, 'b.db')}").schema_hash == base
    wider = [CUSTOMER.replace("region TEXT", "region TEXT,\n    tier TEXT"), *DDL[1:]]
    assert load_sql(f"sqlite:///{_database(tmp_path, wider, 'c.db')}").schema_hash != base


def test_wide_table_members_are_bounded(tmp_path: Path) -> None:
    lines = [f"    c{i} INTEGER, -- column {i}" for i in range(69)] + ["    c69 INTEGER"]
    statement = "CREATE TABLE wide (\n" + "\n".join(lines) + "\n);"
    schema = load_sql(
        f"sqlite:///{_database(tmp_path, [statement], 'wide.db')}", documents="single"
    )
    members = schema.documents[0].members
    assert len(members) == 70
    assert members[0] == "c0 INTEGER — column 0"
    assert members[MAX_DESCRIBED_COLUMNS] == f"c{MAX_DESCRIBED_COLUMNS}"


def test_parse_sqlite_comments_variants() -> None:
    sql = '''CREATE TABLE IF NOT EXISTS "odd table"(
        -- Odd names.

        "quoted ""name""" TEXT, -- Quoted.
        [bracketed] TEXT, -- Bracketed.
        `ticked` TEXT, -- Ticked.
        -- a free-standing comment is ignored
        plain TEXT CHECK (plain <> '--'), -- Plain.
        CONSTRAINT pk PRIMARY KEY (plain) -- ignored
    )'''
    table, columns = parse_sqlite_comments(sql)
    assert table == "Odd names."
    assert columns == {
        'quoted "name"': "Quoted.",
        "bracketed": "Bracketed.",
        "ticked": "Ticked.",
        "plain": "Plain.",
    }
    assert parse_sqlite_comments("CREATE TABLE t (a INT, b INT)") == ("", {})


@pytest.fixture()
def demo_engine() -> Iterator[sqlalchemy.Engine]:
    script = resources.files("schemaseek.demo").joinpath("music.sql").read_text("utf-8")

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.executescript(script)
        return conn

    engine = sqlalchemy.create_engine("sqlite://", creator=connect, poolclass=StaticPool)
    yield engine
    engine.dispose()


def test_demo_catalog(demo_engine: sqlalchemy.Engine) -> None:
    demo = load_sql("sqlite://", "music_db", engine=demo_engine, documents="single")
    docs = _docs(demo)
    assert demo.name == "music_db"
    assert len(docs) >= 25
    assert all(d.description for d in docs.values()), "every demo table has a description"
    undescribed = [
        (d.id, c["name"]) for d in docs.values() for c in d.data["columns"] if not c["description"]
    ]
    assert undescribed == []
    edges = {(e.source, e.target) for e in demo.edges}
    assert len(demo.edges) >= 25
    assert ("prd_master", "record_label") in edges
    assert ("fx_rate", "currency") in edges
    assert ("employee", "employee") in edges  # self-reference: manager_id
    fx = [e for e in demo.edges if (e.source, e.target) == ("fx_rate", "currency")]
    assert sorted(c for e in fx for c in e.data["columns"]) == [
        "from_currency_code", "to_currency_code",
    ]  # fmt: skip
    assert docs["currency"].description.startswith("ISO 4217 currencies")
    assert docs["currency"].members[0].startswith("currency_code TEXT — Three-letter ISO 4217")
    assert load_sql("sqlite://", "music_db", engine=demo_engine).schema_hash == demo.schema_hash


MISSING_DRIVERS = [
    ("postgresql+psycopg2://u:secret@h/db", ("psycopg2",), "postgres"),
    ("postgresql://u:secret@h/db", ("psycopg",), "postgres"),
    ("mysql://u:secret@h/db", ("pymysql", "MySQLdb"), "mysql"),
    ("duckdb:///x.duckdb", ("duckdb_engine", "duckdb"), "duckdb"),
    ("snowflake://u:secret@account/db/schema", ("snowflake", "snowflake.sqlalchemy"), "snowflake"),
]


@pytest.mark.parametrize(("url", "modules", "extra"), MISSING_DRIVERS)
def test_missing_driver_names_extra_and_hides_password(
    url: str, modules: tuple[str, ...], extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in modules:  # as if not installed, whether it is or not
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError) as caught:
        load_sql(url)
    assert caught.value.extra == extra
    assert f"schemaseek[{extra}]" in str(caught.value)
    assert "secret" not in str(caught.value)
    assert "secret" not in " ".join(getattr(caught.value, "__notes__", []))


def test_other_errors_hide_password(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        load_sql("nosuchdialect://u:secret@h/db")
    assert "secret" not in str(caught.value) and "u:***@h/db" in str(caught.value)
    with pytest.raises(SourceError, match="could not be parsed"):
        load_sql("not a url")
    with pytest.raises(SourceError, match="not found"):
        load_sql(f"sqlite:///{tmp_path / 'missing.db'}")
    assert not (tmp_path / "missing.db").exists()


def test_in_memory_default_name() -> None:
    engine = sqlalchemy.create_engine("sqlite://", poolclass=StaticPool)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (\n    -- A table.\n    a INTEGER -- A.\n)")
    schema = load_sql("sqlite://", engine=engine, documents="single")
    engine.dispose()
    assert schema.name == "sqlite"
    assert schema.documents[0].description == "A table."
    assert schema.documents[0].members == ("a INTEGER — A.",)


def test_attached_schema_is_qualified(tmp_path: Path) -> None:
    other = _database(tmp_path, [WAREHOUSE, STOCK_MOVE.replace(
        "REFERENCES customer(customer_id)", ""
    )], "other.db")  # fmt: skip
    main = _database(tmp_path, [CUSTOMER], "main.db")

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(main, check_same_thread=False)
        conn.execute("ATTACH DATABASE ? AS other", (str(other),))
        return conn

    engine = sqlalchemy.create_engine("sqlite://", creator=connect, poolclass=StaticPool)
    schema = load_sql("sqlite://", "shop", ["main", "other"], engine=engine, documents="single")
    engine.dispose()
    docs = _docs(schema)
    assert set(docs) == {"customer", "other.warehouse", "other.stock_move"}
    assert docs["other.warehouse"].name == "warehouse"
    assert docs["other.warehouse"].data["schema"] == "other"
    assert docs["other.stock_move"].description == "Movements of goods into and out of bins."
    assert [(e.source, e.target) for e in schema.edges] == [
        ("other.stock_move", "other.warehouse"),
    ]  # fmt: skip


def test_reference_without_schema_falls_back_to_the_only_table_of_that_name() -> None:
    from schemaseek.sources.sql import _resolve_references

    def table(schema: str, name: str, refs: list[str]) -> TableRecord:
        keys: list[ForeignKeyRecord] = [
            {"name": None, "columns": ["x"], "ref_columns": ["x"], "ref_name": r,
             "ref_table": f"{schema}.{r}"}
            for r in refs
        ]  # fmt: skip
        return table_record(f"{schema}.{name}", name, schema=schema, foreign_keys=keys)

    tables = [table("sales", "orders", ["currency", "nowhere"]), table("public", "currency", [])]
    _resolve_references(tables)
    edges = foreign_key_edges(tables)
    assert [(e.source, e.target) for e in edges] == [("sales.orders", "public.currency")]
