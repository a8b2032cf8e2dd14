"""The rerank stage: what it hands a reranker, what it protects from one, how it degrades."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from schemaseek.documents import DocKind, Document
from schemaseek.query.rerank import rerank_stage
from schemaseek.rerankers.base import Ranked


class Reversing:
    """Puts the fused order upside down and records what it was given."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str], list[float] | None]] = []

    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked:
        self.seen.append(
            (query, [d.id for d in candidates], None if fused is None else list(fused))
        )
        return [(d.id, float(i)) for i, d in enumerate(candidates)][::-1]


class Broken:
    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked:
        raise RuntimeError("model file truncated")


DOCS = {
    "orders": Document("orders", DocKind.SQL_TABLE, "db", "orders"),
    "customers": Document("customers", DocKind.SQL_TABLE, "db", "customers"),
    "items": Document("items", DocKind.SQL_TABLE, "db", "items"),
    "Query.orders": Document("Query.orders", DocKind.GRAPHQL_ROOT_FIELD, "api", "orders"),
}
FUSED = [("Query.orders", 9.0), ("orders", 3.0), ("customers", 2.0), ("items", 1.0)]


def test_the_reranker_gets_candidates_and_fused_scores() -> None:
    reranker = Reversing()
    ranked, reranked = rerank_stage(reranker, "q", DOCS, FUSED)
    assert reranked
    assert reranker.seen == [("q", [d for d, _ in FUSED], [s for _, s in FUSED])]
    # the root field keeps its fused score (9.0); the tables take the reranker's
    assert ranked == [("Query.orders", 9.0), ("items", 3.0), ("customers", 2.0), ("orders", 1.0)]


def test_ids_voted_by_usage_feedback_keep_their_fused_score() -> None:
    ranked, _ = rerank_stage(Reversing(), "q", DOCS, FUSED, voted={"orders"})
    assert dict(ranked)["orders"] == 3.0  # not the reranker's 1.0
    assert [d for d, _ in ranked][-1] == "customers"


@pytest.mark.parametrize("reranker", [None, Broken()])
def test_no_reranker_or_a_failing_one_keeps_the_fused_ranking(reranker: Broken | None) -> None:
    assert rerank_stage(reranker, "q", DOCS, FUSED) == (FUSED, False)
    assert rerank_stage(Reversing(), "q", DOCS, []) == ([], False)


@pytest.mark.parametrize("most, reranked", [(0, False), (100_000, True)])
def test_indexes_past_rerank_max_documents_skip_the_stage(most: int, reranked: bool) -> None:
    from schemaseek.config import SearchSettings
    from schemaseek.index import SchemaIndex
    from schemaseek.sources.demo import demo_sources
    from tests.evaluation.fakes import FakeProvider

    reranker = Reversing()
    index = SchemaIndex(
        demo_sources(),
        provider=FakeProvider(),
        reranker=reranker,
        settings=SearchSettings(rerank_max_documents=most),
    )
    index.build()
    response = index.search("royalty payments", limit=5)
    assert all(h.explanation.reranked is reranked for h in response.hits)
    assert bool(reranker.seen) is reranked
