"""The one federation (schemaseek.federation) in process: merge order, pages, failures, one
query_id per search, and usage reports resolved through one recent-query store."""

from __future__ import annotations

import pytest

from schemaseek.config import SearchSettings
from schemaseek.engine.units import IndexUnit
from schemaseek.federation import (
    Member,
    NoEngineError,
    Page,
    Served,
    federated_search,
    hit_key,
    known_ids,
    learn,
    serving,
)
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.query.filters import SearchFilter
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.recent import RecentQueries
from schemaseek.service.backend import Backend
from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql

QUESTION = "royalty payments for Sony"


@pytest.fixture(scope="module")
def split() -> list[SchemaIndex]:
    """The demo as two keyword-only indexes (the GraphQL API and the SQL database)."""
    indexes = [
        SchemaIndex([source], glossary=demo_glossary().narrowed_to(source), provider=None)
        for source in (demo_graphql(), demo_sql())
    ]
    for index in indexes:
        index.build()
    return indexes


def test_hits_merge_by_score_then_source_then_id(split: list[SchemaIndex]) -> None:
    recent = RecentQueries()
    answer = federated_search(serving(split), QUESTION, limit=10, mode="keyword", recent=recent)
    each = [h for i in split for h in i.search(QUESTION, limit=10, mode="keyword").hits]
    expected = sorted(each, key=lambda h: (-h.score, h.document.source, h.id))[:10]
    assert answer.ids() == [h.id for h in expected]
    assert [h.member for h in answer.hits] == [h.document.source for h in expected]
    assert {h.document.source for h in expected} == {"music_api", "music_db"}
    assert answer.query == QUESTION and answer.mode == "keyword" and not answer.degraded
    # one query_id for the whole search, remembered once with its question and ranking
    assert len(recent) == 1
    assert recent.question(answer.query_id) == QUESTION
    assert recent.ranking(answer.query_id) == tuple(answer.ids())
    assert all(i.recent.get(answer.query_id) is None for i in split)
    assert answer.response().ids() == answer.ids()


def test_one_unpaged_ranking_passes_through(split: list[SchemaIndex]) -> None:
    recent = RecentQueries()
    answer = federated_search(
        serving(split), QUESTION, limit=5, mode="keyword",
        search_filter=SearchFilter(sources=("music_db",)), recent=recent,
    )  # fmt: skip
    alone = split[1].search(QUESTION, limit=5, mode="keyword", sources=["music_db"])
    assert answer.ids() == alone.ids()
    assert split[1].recent.question(answer.query_id) == QUESTION
    assert recent.ranking(answer.query_id) == tuple(alone.ids())


def test_pages_follow_the_keyset_without_gaps_or_repeats(split: list[SchemaIndex]) -> None:
    members = serving(split)
    whole = federated_search(
        members, QUESTION, limit=12, mode="keyword", page=Page(max_depth=50)
    ).ids()
    seen: list[str] = []
    after: tuple[float, str] | None = None
    for _ in range(3):
        page = federated_search(
            members, QUESTION, limit=4, mode="keyword",
            page=Page(max_depth=50, served=len(seen), after=after),
        )  # fmt: skip
        seen += page.ids()
        last = page.hits[-1]
        after = (last.hit.score, last.key)
        assert last.key == hit_key(last.hit.document.source, last.hit.id)
        assert page.has_more
    assert seen == whole
    capped = federated_search(members, QUESTION, limit=4, mode="keyword", page=Page(max_depth=4))
    assert len(capped.hits) == 4 and not capped.has_more


def test_a_failing_member_degrades_and_bad_questions_raise(
    split: list[SchemaIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken:
        name = "broken"
        index = split[0]

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("engine down (test)")

    settings = SearchSettings()
    members: list[Member] = [Broken(), Served("music_db", split[1])]
    monkeypatch.setattr(split[0], "search", fail)
    answer = federated_search(
        members, QUESTION, limit=5, mode="keyword", page=Page(max_depth=50), settings=settings
    )
    assert answer.degraded and {h.member for h in answer.hits} == {"music_db"}
    with pytest.raises(NoEngineError):
        federated_search(members[:1], QUESTION, limit=5, settings=settings)
    with pytest.raises(NoEngineError):
        federated_search([Served("none", None)], QUESTION, limit=5)
    for bad in ({"query": "  "}, {"limit": 0}, {"mode": "fuzzy"}):
        args = {"query": QUESTION, "limit": 5, "mode": "keyword"} | bad
        with pytest.raises(InvalidQueryError):
            federated_search(
                members, str(args["query"]), limit=int(str(args["limit"])),
                mode=str(args["mode"]), settings=settings,
            )  # fmt: skip


def test_usage_reports_resolve_through_the_one_store(split: list[SchemaIndex]) -> None:
    members = serving(split)
    assert known_ids(members, ["royalty_payment", "nope", "AbacusRoyaltyPayment", "nope"]) == (
        ["royalty_payment", "AbacusRoyaltyPayment"],
        ["nope"],
    )
    assert not learn(members, None, ["royalty_payment"])
    # keyword-only indexes have no model to compare questions with: nothing is learned
    assert not learn(members, QUESTION, ["royalty_payment"])
    feedback = FeedbackStore(None)
    backend = Backend(
        [IndexUnit(i.sources[0].name, i) for i in split],
        settings=SearchSettings(),
        glossary=Glossary(),
        feedback=feedback,
    )
    assert backend.recent is feedback.recent
    answer = federated_search(
        backend.units, QUESTION, limit=5, mode="keyword", recent=backend.recent
    )
    recorded, unknown, learned = backend.record_usage(answer.query_id, ["royalty_payment", "x"])
    assert (recorded, unknown, learned) == (True, ["x"], False)
    assert feedback.events()[0].query == QUESTION
    assert backend.close(timeout=1.0)
