"""Coordination: BM25 hits scaled by the share of the question they hold beyond chance."""

from __future__ import annotations

import math

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.index import SchemaIndex
from schemaseek.signals.coordination import TermStatistics, coordinate
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.text import tokenize


def stats(
    frequency: dict[str, int], distinct: dict[str, int], documents: int = 100, mean: float = 5.0
) -> TermStatistics:
    return TermStatistics(frequency, documents, mean, distinct)


def idf(df: int, n: int = 100) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_a_hit_holding_more_of_the_question_overtakes_a_higher_bm25_score() -> None:
    hits = [("short", 9.0), ("wide", 5.0)]
    texts = {"short": "contin", "wide": "countri surfac area contin popul"}
    tokens = tokenize("surface area of the continents")
    assert tokens == ["surfac", "area", "contin"]
    frequency = {"surfac": 1, "area": 1, "contin": 2}
    ranked = coordinate(
        hits, tokens, texts, stats(frequency, {"short": 1, "wide": 5}), power=3, floor=0.0
    )
    assert [doc for doc, _ in ranked] == ["wide", "short"]
    # the arithmetic: idf-weighted held share minus what a document of its size holds by chance
    weights = {t: idf(df) for t, df in frequency.items()}
    total = sum(weights.values())
    chance = sum(w * (1 - (1 - frequency[t] / 100) ** 1.0) for t, w in weights.items())
    assert math.isclose(ranked[0][1], 5.0 * ((total - chance) / total) ** 3)
    chance = sum(w * (1 - (1 - frequency[t] / 100) ** 0.2) for t, w in weights.items())
    assert math.isclose(ranked[1][1], 9.0 * ((weights["contin"] - chance) / total) ** 3)


def test_a_wide_document_holding_common_words_by_chance_loses_to_a_rare_match() -> None:
    # "wide" holds three of four question words, but they are words most documents hold and it
    # is twenty times the mean size: by chance it would hold them anyway. "narrow" holds the
    # one rare word. A plain share (floor 1 is no coordination at all) would rank "wide" first.
    tokens = ["bitcoin", "date", "total", "amount"]
    frequency = {"bitcoin": 2, "date": 60, "total": 50, "amount": 40}
    padding = " ".join(f"c{i}" for i in range(97))
    texts = {"wide": f"date total amount {padding}", "narrow": "bitcoin"}
    hits = [("wide", 6.0), ("narrow", 5.0)]
    sizes = stats(frequency, {"wide": 100, "narrow": 1})
    assert coordinate(hits, tokens, texts, sizes, power=1, floor=1.0) == hits
    ranked = coordinate(hits, tokens, texts, sizes, power=1, floor=0.05)
    assert [doc for doc, _ in ranked] == ["narrow", "wide"]
    assert math.isclose(ranked[1][1], 6.0 * 0.05)  # nothing beyond chance: the floor


def test_power_zero_unknown_texts_and_ties() -> None:
    hits = [("a", 4.0), ("b", 4.0), ("c", 3.0)]
    empty = stats({}, {})
    assert coordinate(hits, ["x", "y"], {"a": "x", "b": "x y"}, empty, power=0, floor=0) == hits
    # "c" has no text (left as is); "a" and "b" hold the same: BM25 order kept
    texts = {"a": "x", "b": "x", "c": ""}
    ranked = coordinate(hits, ["x", "y"], texts, stats({"x": 0, "y": 0}, {}), power=1, floor=0)
    assert [doc for doc, _ in ranked] == ["a", "b", "c"]
    assert ranked[0][1] == ranked[1][1] and ranked[2][1] == 0.0
    assert coordinate(hits, ["x"], {}, stats({}, {}), power=2, floor=0) == hits
    assert coordinate(hits, ["x"], texts, stats({}, {}, documents=0), power=2, floor=0) == hits


def test_a_hit_found_by_the_prefix_fallback_counts_prefixes() -> None:
    # "cust" matches nothing exactly; the prefix fallback found "customer" tables
    frequency = {"cust": 0, "zzz": 0}
    ranked = coordinate(
        [("t", 2.0)], ["cust", "zzz"], {"t": "custom order"}, stats(frequency, {"t": 2}),
        power=1, floor=0,
    )  # fmt: skip
    assert math.isclose(ranked[0][1], 2.0 * (idf(0) - 0) / (2 * idf(0)))


def test_the_index_counts_what_coordination_needs_and_keeps_it_through_files() -> None:
    index = KeywordIndex()
    index.add([table("a", "x", "y"), table("b", "y")])
    texts = index.analysed_texts(["world.a", "world.b"])
    a, b = (len(set(texts[d].split())) for d in ("world.a", "world.b"))
    hits = ["world.a", "world.b", "gone"]
    got = index.term_statistics(["y", "x", "q"], hits)
    counts = {"world.a": a, "world.b": b}
    assert got == TermStatistics({"y": 2, "x": 1, "q": 0}, 2, (a + b) / 2, counts)
    reopened = KeywordIndex.from_files(index.to_files())  # counted again on first use
    assert reopened.term_statistics(["y", "x", "q"], hits) == got
    reopened.remove(["world.a"])
    after = reopened.term_statistics(["x", "y"], hits)
    assert after == TermStatistics({"x": 0, "y": 1}, 1, b, {"world.b": b})
    reopened.add([table("b", "y", "z", "w")])  # replaced: counted again
    c = len(set(reopened.analysed_texts(["world.b"])["world.b"].split()))
    assert c == b + 2
    assert reopened.term_statistics([], ["world.b"]) == TermStatistics({}, 1, c, {"world.b": c})


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
    off = SchemaIndex(
        [world()], provider=None, settings=SearchSettings(weights={"coordination": 0})
    )
    off.build()
    assert off.search(question, mode="keyword", kinds=["sql_table"]).ids()[0] == "world.continents"


def test_the_coordinated_sql_hits_are_fused_beside_the_plain_list_on_its_scale() -> None:
    question = "total surface area of the continents Asia and Europe"
    settings = SearchSettings(weights={"coordination": 2.0})
    index = SchemaIndex([world(), shop()], provider=None, settings=settings)
    index.build()
    signals = {
        hit.id: hit.explanation.signals
        for hit in index.search(question, mode="keyword", limit=20).hits
        if hit.explanation is not None
    }
    coordinated = {
        d: found["coordination"] for d, found in signals.items() if "coordination" in found
    }
    # SQL documents only (the GraphQL type holds "total" and "area" and stays out), scored as
    # a share of the best BM25 score: the table holding the question beyond chance leads
    assert "keyword" in signals["Order"] and "Order" not in coordinated
    assert min(coordinated, key=lambda d: coordinated[d].rank) == "world.country"
    assert all(0 < hit.score <= 1 for hit in coordinated.values())
    # fused, it narrows plain BM25's lead of the short table with one name match
    off = SchemaIndex(
        [world(), shop()], provider=None, settings=SearchSettings(weights={"coordination": 0})
    )
    off.build()

    def lead(found: SchemaIndex) -> float:
        hits = found.search(question, mode="keyword", kinds=["sql_table"]).hits
        scores = {hit.id: hit.score for hit in hits}
        return scores["world.continents"] / scores["world.country"]

    assert lead(index) < lead(off)


def shop() -> SourceSchema:
    order = Document(
        id="Order",
        kind=DocKind.GRAPHQL_TYPE,
        source="shop",
        name="Order",
        description="An order of a customer, with the total area it is delivered to",
    )
    return SourceSchema(name="shop", kind="graphql", documents=[order], edges=[],
                        schema_hash=stable_hash(["Order"]))  # fmt: skip
