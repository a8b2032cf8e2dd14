"""Coordination: BM25 hits scaled by the share of the question's terms they hold."""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.index import SchemaIndex
from schemaseek.signals.coordination import coordinate
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.text import tokenize


def test_a_hit_holding_more_of_the_question_overtakes_a_higher_bm25_score() -> None:
    hits = [("short", 9.0), ("wide", 5.0)]
    texts = {"short": "contin", "wide": "countri surfac area contin popul"}
    tokens = tokenize("surface area of the continents")
    assert tokens == ["surfac", "area", "contin"]
    ranked = coordinate(hits, tokens, texts, 3.0)
    assert [doc for doc, _ in ranked] == ["wide", "short"]
    assert ranked[0][1] == 5.0  # holds all three terms: unchanged
    assert abs(ranked[1][1] - 9.0 / 27) < 1e-9  # one of three, cubed


def test_power_zero_unknown_texts_and_ties() -> None:
    hits = [("a", 4.0), ("b", 4.0), ("c", 3.0)]
    assert coordinate(hits, ["x", "y"], {"a": "x", "b": "x y"}, 0.0) == hits
    # "c" has no text (left as is); "a" and "b" hold the same share: BM25 order kept
    ranked = coordinate(hits, ["x", "y"], {"a": "x", "b": "x", "c": ""}, 1.0)
    assert ranked == [("a", 2.0), ("b", 2.0), ("c", 0.0)]
    assert coordinate(hits, ["x"], {}, 2.0) == hits


def test_a_hit_found_by_the_prefix_fallback_counts_prefixes() -> None:
    # "cust" matches nothing exactly; the prefix fallback found "customer" tables
    ranked = coordinate([("t", 2.0)], ["cust", "zzz"], {"t": "custom order"}, 1.0)
    assert ranked == [("t", 1.0)]


def table(name: str, *columns: str) -> Document:
    return Document(
        id=f"world.{name}", kind=DocKind.SQL_TABLE, source="world", name=name, members=columns
    )


def world() -> SourceSchema:
    documents = [
        table("continents", "cont_id", "continent"),
        table(
            "country",
            "code",
            "name",
            "continent",
            "region",
            "surface_area",
            "indep_year",
            "population",
            "life_expectancy",
            "gnp",
            "gnp_old",
            "local_name",
            "government_form",
            "head_of_state",
            "capital",
            "code2",
        ),
        table("city", "id", "name", "country_code", "district", "population"),
    ]
    return SourceSchema(
        name="world",
        kind="sql",
        documents=documents,
        edges=[],
        schema_hash=stable_hash([d.id + repr(d.members) for d in documents]),
    )


def test_the_setting_ranks_the_table_holding_the_whole_question_first() -> None:
    question = "total surface area of the continents Asia and Europe"
    on = SchemaIndex([world()], provider=None, settings=SearchSettings(keyword_coordination=3))
    on.build()
    assert on.search(question, mode="keyword", kinds=["sql_table"]).ids()[0] == "world.country"
    # the default (off), plain BM25: one name match in a short table beats three terms in a
    # wide one
    off = SchemaIndex([world()], provider=None)
    off.build()
    assert off.search(question, mode="keyword", kinds=["sql_table"]).ids()[0] == "world.continents"
