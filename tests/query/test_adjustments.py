"""Join propagation: what the FK graph adds to a ranking after fusion."""

from __future__ import annotations

import pytest

from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.query.adjustments import propagate_joins
from schemaseek.query.filters import SearchFilter

TABLES = ("orders", "customers", "items", "products", "regions", "audit", "other_db.log")


def _table(name: str) -> Document:
    source = "other" if name.startswith("other_db.") else "shop"
    return Document(id=name, kind=DocKind.SQL_TABLE, source=source, name=name)


DOCUMENTS = {name: _table(name) for name in TABLES}
FK = [
    ("orders", "customers"),
    ("items", "orders"),
    ("items", "products"),
    ("customers", "regions"),
    ("audit", "orders"),
    ("audit", "customers"),
    ("audit", "items"),
    ("other_db.log", "orders"),
]
GRAPH = SchemaGraph(TABLES, [Edge(a, b, Relation.FOREIGN_KEY, {}) for a, b in FK])


def _propagate(
    ranked: list[tuple[str, float]],
    *,
    weight: float = 0.5,
    anchors: int = 3,
    search_filter: SearchFilter | None = None,
    referencing_share: float = 1.0,
) -> tuple[list[tuple[str, float]], dict[str, str]]:
    notes: dict[str, str] = {}
    out = propagate_joins(
        GRAPH, DOCUMENTS, search_filter or SearchFilter(), notes, ranked,
        weight=weight, anchors=anchors, referencing_share=referencing_share,
    )  # fmt: skip
    return out, notes


def test_a_partner_gains_weight_times_its_anchors_relative_scores() -> None:
    ranked = [("orders", 2.0), ("products", 1.0), ("regions", 0.2)]
    out, notes = _propagate(ranked, anchors=2)
    scores = dict(out)
    # customers: one vote from orders (2.0 / 2.0 = 1.0) → 0 + 0.5 · 1.0, on the input's scale
    assert scores["customers"] == pytest.approx(0.5 * 1.0 * 2.0)
    # items joins both anchors: votes 1.0 and 0.5 → 0.5 · 1.5
    assert scores["items"] == pytest.approx(0.5 * 1.5 * 2.0)
    # regions is no partner of the two anchors: unchanged
    assert scores["regions"] == pytest.approx(0.2)
    assert [d for d, _ in out][:2] == ["orders", "items"]
    assert notes["items"] == "joins orders by a foreign key"


def test_only_the_two_strongest_votes_count() -> None:
    # audit joins orders, customers and items; only its two best votes add up
    ranked = [("orders", 1.0), ("customers", 0.8), ("items", 0.6)]
    out, _ = _propagate(ranked, weight=1.0)
    assert dict(out)["audit"] == pytest.approx(1.0 + 0.8)


def test_a_table_the_hit_references_gains_more_than_one_referencing_it() -> None:
    # orders references customers (its lookup); items and audit reference orders (children)
    ranked = [("orders", 1.0), ("regions", 0.05)]
    out, notes = _propagate(ranked, weight=0.4, anchors=1, referencing_share=0.5)
    scores = dict(out)
    assert scores["customers"] == pytest.approx(0.4 * 1.0)
    assert scores["items"] == pytest.approx(0.4 * 0.5)
    assert scores["audit"] == pytest.approx(0.4 * 0.5)
    assert [d for d, _ in out][:2] == ["orders", "customers"]
    assert notes["items"] == "joins orders by a foreign key"
    # a mutual reference counts once, at the larger share
    both = SchemaGraph(
        ("a", "b"),
        [Edge("a", "b", Relation.FOREIGN_KEY, {}), Edge("b", "a", Relation.FOREIGN_KEY, {})],
    )
    docs = {name: _table(name) for name in ("a", "b")}
    mutual = propagate_joins(
        both, docs, SearchFilter(), {}, [("a", 1.0)], weight=0.4, anchors=1, referencing_share=0.5
    )
    assert dict(mutual)["b"] == pytest.approx(0.4)


def test_the_filter_and_the_anchor_count_are_respected() -> None:
    ranked = [("orders", 1.0), ("customers", 0.9), ("regions", 0.1)]
    scoped, _ = _propagate(ranked, search_filter=SearchFilter(sources=("shop",)))
    assert "other_db.log" not in dict(scoped)
    assert "other_db.log" in dict(_propagate(ranked)[0])
    one, _ = _propagate(ranked, anchors=1)
    assert dict(one)["regions"] == pytest.approx(0.1)  # a partner of customers, not anchor 1


@pytest.mark.parametrize("weight, anchors", [(0.0, 3), (0.5, 0)])
def test_off_returns_the_ranking_unchanged(weight: float, anchors: int) -> None:
    ranked = [("orders", 1.0), ("customers", 0.5)]
    assert _propagate(ranked, weight=weight, anchors=anchors) == (ranked, {})


def test_nothing_to_do_without_a_positive_top_score() -> None:
    assert _propagate([])[0] == []
    ranked = [("orders", 0.0), ("customers", 0.0)]
    assert _propagate(ranked)[0] == ranked
