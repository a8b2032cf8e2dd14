"""Graph signals on small graphs with hand-computed values, and the weak-hit threshold."""

from __future__ import annotations

import math

import pytest
from graphql import build_schema

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.index import SchemaIndex
from schemaseek.signals.graph import GraphSignals
from schemaseek.signals.weak_hits import weak_hit_threshold
from schemaseek.sources.graphql import from_schema


def table(name: str, columns: int = 1) -> Document:
    cols = tuple(f"c{i} INT" for i in range(columns))
    return Document(name, DocKind.SQL_TABLE, "db", name, "", cols)


# a - b - c - d, plus e - b: b is the hub and the bridge
DOCS = {d.id: d for d in [table("a", 2), table("b", 8), table("c", 1), table("d", 4), table("e")]}
EDGES = [
    Edge(x, y, Relation.FOREIGN_KEY) for x, y in [("a", "b"), ("b", "c"), ("c", "d"), ("e", "b")]
]


@pytest.fixture()
def signals() -> GraphSignals:
    return GraphSignals(SchemaGraph(DOCS, EDGES), DOCS)


def test_degree_normalised(signals: GraphSignals) -> None:
    assert signals.static_scores("degree") == {
        "a": 1 / 3, "b": 1.0, "c": 2 / 3, "d": 1 / 3, "e": 1 / 3,
    }  # fmt: skip


def test_adamic_adar_hand_computed(signals: GraphSignals) -> None:
    raw_b = 1 / math.log(2)  # neighbours a, c, e: only c has degree > 1
    raw_c = 1 / math.log(3)  # neighbours b (3) and d (1)
    raw_a = 1 / math.log(3)
    scores = signals.static_scores("adamic_adar")
    top = max(raw_b, raw_c, raw_a)
    assert scores["b"] == pytest.approx(raw_b / top)
    assert scores["c"] == pytest.approx(raw_c / top)
    assert "d" in scores and scores["d"] == pytest.approx((1 / math.log(2)) / top)


def test_betweenness_favours_the_bridge(signals: GraphSignals) -> None:
    ranked = signals.rank_static("betweenness", DOCS)
    assert ranked[0][0] == "b" and ranked[0][1] == 1.0


def test_column_density_and_candidates_only(signals: GraphSignals) -> None:
    assert signals.rank_static("column_density", ["a", "d"]) == [("d", 0.5), ("a", 0.25)]
    with pytest.raises(ValueError):
        signals.static_scores("pagerank")


def test_proximity_from_anchors(signals: GraphSignals) -> None:
    assert signals.proximity(["a"], ["b", "c", "d", "a"]) == [("b", 0.5), ("c", 1 / 3)]


def test_reach_credits_root_fields_by_where_they_lead() -> None:
    schema = from_schema(
        build_schema(
            """
            type Query { repository(name: String!): Repository  viewer: User }
            type Repository { pullRequests: [PullRequest!]! }
            type PullRequest { reviews: [Review!]! }
            type Review { body: String }
            type User { login: String }
            """
        ),
        "gh",
    )
    docs = {d.id: d for d in schema.documents}
    signals = GraphSignals(SchemaGraph(docs, schema.edges), docs)
    ranked, evidence = signals.reach([("Review", 1.0)])
    assert ranked[0][0] == "Query.repository"
    assert evidence["Query.repository"] == ("Review", 3)
    assert "Query.viewer" not in dict(ranked)
    # credits (score / (1 + hops)) add up, then saturate: s / (1 + s) stays below 1
    assert dict(ranked)["Query.repository"] == pytest.approx(0.25 / 1.25)
    many, _ = signals.reach([("Review", 1.0), ("PullRequest", 1.0), ("Repository", 1.0)])
    total = 1 / 4 + 1 / 3 + 1 / 2
    assert dict(many)["Query.repository"] == pytest.approx(total / (1 + total))


def test_weak_hit_threshold() -> None:
    background = [0.9] * 8 + [0.1] * 50 + [0.5] * 50
    # the top eight are excluded; p99 of the rest is 0.5 → floor max(0.25, 0.52, 0.55 - 0.10)
    assert weak_hit_threshold(background, best=0.55) == pytest.approx(0.52)
    # one high outlier among 101 does not move p99 (0.1): the floor is best - 0.10
    assert weak_hit_threshold([0.1] * 100 + [0.5], best=0.55) == pytest.approx(0.45)
    assert weak_hit_threshold([0.0] * 50, best=0.9) == pytest.approx(0.8)
    assert weak_hit_threshold([], best=0.2) == pytest.approx(0.25)


def test_pipeline_uses_reach_and_explains_it() -> None:
    settings = SearchSettings(weights={"reach": 1.0, "degree": 0.5, "proximity": 0.5})
    from schemaseek.sources.demo import demo_graphql

    index = SchemaIndex([demo_graphql()], provider=None, settings=settings)
    index.build()
    response = index.search("delivery status events", limit=20)
    roots = [h for h in response.hits if h.document.kind is DocKind.GRAPHQL_ROOT_FIELD]
    assert roots and any("reach" in h.explanation.signals for h in roots)
    assert any(n.startswith("leads to") for h in roots for n in h.explanation.notes)
