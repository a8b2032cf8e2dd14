"""Foreign keys inferred from <X>_ID column names: forms, scope preference, no self-edges."""

from __future__ import annotations

from schemaseek.documents import Relation
from schemaseek.sources.inferred import infer_foreign_keys, reference_name
from schemaseek.sources.records import TableRecord
from tests.helpers.records import table_record


def table(fqn: str, *columns: str, pk: tuple[str, ...] = ()) -> TableRecord:
    database, schema, name = fqn.split(".")
    return table_record(
        fqn, name, schema=schema, database=database, columns=columns, primary_key=pk
    )


def pairs(tables: list[TableRecord]) -> set[tuple[str, str, str, str]]:
    return {
        (e.source, e.data["columns"][0], e.target, e.data["ref_columns"][0])
        for e in infer_foreign_keys(tables)
    }


def test_reference_names() -> None:
    assert reference_name("ARTIST_ID") == "artist"
    assert reference_name("gas_station_id") == "gasstation"
    assert reference_name("CustomerID") == "customer"
    assert reference_name("artistId") == "artist"
    assert reference_name("ID") is None and reference_name("_ID") is None
    assert reference_name("productcategoryid") == "productcategory"
    assert reference_name("CUSTOMERID") == "customer"
    assert reference_name("PAID") is None and reference_name("kid") is None
    assert reference_name("Valid") is None  # mixed case, not camelCase before "id"


def test_forms_x_plural_dim_fact() -> None:
    tables = [
        table("D.S.SALES", "ARTIST_ID", "CUSTOMER_ID", "PRODUCT_ID", "STORE_ID"),
        table("D.S.ARTIST", "ARTIST_ID", "NAME"),
        table("D.S.CUSTOMERS", "CUSTOMER_ID"),
        table("D.S.DIM_PRODUCT", "ID", pk=("ID",)),
        table("D.S.FACT_STORE", "STORE_KEY", pk=("STORE_KEY",)),
    ]
    assert pairs(tables) == {
        ("D.S.SALES", "ARTIST_ID", "D.S.ARTIST", "ARTIST_ID"),
        ("D.S.SALES", "CUSTOMER_ID", "D.S.CUSTOMERS", "CUSTOMER_ID"),
        ("D.S.SALES", "PRODUCT_ID", "D.S.DIM_PRODUCT", "ID"),
        ("D.S.SALES", "STORE_ID", "D.S.FACT_STORE", "STORE_KEY"),
    }
    edge = infer_foreign_keys(tables)[0]
    assert edge.relation is Relation.FOREIGN_KEY and edge.data["inferred"] is True
    assert edge.data["rule"] == "X in same schema"


def test_no_self_edge_from_own_key_even_with_a_namesake_elsewhere() -> None:
    tables = [
        table("D.S.ARTIST", "ARTIST_ID"),
        table("D.OTHER.ARTIST", "ARTIST_ID"),
        table("D.S.ARTISTS_LOG", "ARTIST_ID"),
    ]
    assert pairs(tables) == {("D.S.ARTISTS_LOG", "ARTIST_ID", "D.S.ARTIST", "ARTIST_ID")}
    assert pairs([table("D.S.ORDER_ITEMS", "ORDER_ITEM_ID")]) == set()


def test_scope_same_schema_then_database_then_unique_anywhere() -> None:
    tables = [
        table("D1.S1.PLAYS", "ARTIST_ID", "LABEL_ID", "GENRE_ID", "MOOD_ID"),
        table("D1.S1.ARTIST", "ARTIST_ID"),
        table("D1.S2.ARTIST", "ARTIST_ID"),
        table("D1.S2.LABEL", "LABEL_ID"),
        table("D2.S1.LABEL", "LABEL_ID"),
        table("D2.S1.GENRE", "GENRE_ID"),
        table("D2.S1.MOOD", "MOOD_ID"),
        table("D3.S1.MOOD", "MOOD_ID"),
    ]
    assert pairs(tables) == {
        ("D1.S1.PLAYS", "ARTIST_ID", "D1.S1.ARTIST", "ARTIST_ID"),  # same schema
        ("D1.S1.PLAYS", "LABEL_ID", "D1.S2.LABEL", "LABEL_ID"),  # same database
        ("D1.S1.PLAYS", "GENRE_ID", "D2.S1.GENRE", "GENRE_ID"),  # the only GENRE anywhere
    }  # MOOD is ambiguous across databases: no edge


def test_declared_keys_come_first_and_targets_need_a_column() -> None:
    orders = table("D.S.ORDERS", "CUSTOMER_ID", "REGION_ID")
    orders["foreign_keys"] = [
        {
            "name": None,
            "columns": ["CUSTOMER_ID"],
            "ref_table": "D.S.CLIENT",
            "ref_name": "CLIENT",
            "ref_columns": ["CLIENT_ID"],
        }
    ]
    tables = [orders, table("D.S.CUSTOMER", "CUSTOMER_ID"), table("D.S.REGION", "NAME")]
    assert pairs(tables) == set()  # declared column skipped; REGION has no joinable column


def test_camel_case_glued_and_plural() -> None:
    tables = [
        table_record("t.yearmonth", columns=["CustomerID"]),
        table_record("t.customers", columns=["CustomerID"]),
        table_record("A.PRODUCT", columns=["productid"]),
        table_record("A.REVIEW", columns=["productid", "valid"]),
    ]
    assert pairs(tables) == {
        ("t.yearmonth", "CustomerID", "t.customers", "CustomerID"),
        ("A.REVIEW", "productid", "A.PRODUCT", "productid"),
    }  # "valid" would need a table named VAL
