"""UpdateGlossary under concurrent searches: every search sees the old glossary in every engine
or the new one in every engine, never a mix (the engines commit inside one gate)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from schemaseek.config import SearchSettings
from schemaseek.engine import SourceEngine
from schemaseek.engine.units import EngineUnit
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary, GlossaryEntry
from schemaseek.service.backend import Backend
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.service.search_service import run_search
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql
from tests.engine.fakes import HashProvider

TERM = "zebra ledger"
TARGETS = {"music_api": "EarningsStatement", "music_db": "rs_statement"}
SECRET = b"glossary-commit-test-secret"


def _backend(providers: dict[str, HashProvider]) -> Backend:
    def factory(name: str, fetch: Callable[[], SourceSchema]) -> SourceEngine:
        return SourceEngine(name, fetch, provider=providers[name], breaker=None)

    glossary = demo_glossary()
    units = [
        EngineUnit("music_api", demo_graphql, factory, glossary),
        EngineUnit("music_db", demo_sql, factory, glossary),
    ]
    return Backend(
        units, settings=SearchSettings(), glossary=glossary, feedback=FeedbackStore(None)
    )


def _sources_with_term(backend: Backend) -> frozenset[str]:
    """The sources whose target carries the new term in a search for it."""
    request = pb.SearchRequest(query=TERM, limit=20, explain=True, mode="keyword")
    response, _ = run_search(backend, SECRET, request, None)
    return frozenset(
        r.source
        for r in response.results
        if r.id == TARGETS.get(r.source)
        and r.explanation is not None
        and TERM in r.explanation.glossary_terms
    )


def test_no_search_sees_a_mix_of_old_and_new_glossary() -> None:
    providers = {name: HashProvider() for name in TARGETS}
    backend = _backend(providers)
    backend.start()
    assert backend.started.wait(60)
    deadline = time.monotonic() + 60
    while backend.status() != "ready" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert backend.status() == "ready"
    assert _sources_with_term(backend) == frozenset()

    entry = GlossaryEntry(terms=(TERM,), targets=tuple(TARGETS.values()), context="Zebra ledgers.")
    new = Glossary(entries=(*demo_glossary().entries, entry))
    slow, quick = providers["music_db"], providers["music_api"]
    slow.block = threading.Event()  # the database engine is slow to embed its new context
    embeds, quick_embeds = slow.embed_calls, quick.embed_calls
    updater = threading.Thread(target=backend.update_glossary, args=(new, 60))
    seen: list[frozenset[str]] = []
    stop = threading.Event()

    def search_all_along() -> None:
        while not stop.is_set():
            seen.append(_sources_with_term(backend))

    searcher = threading.Thread(target=search_all_along)
    try:
        updater.start()
        searcher.start()
        while slow.embed_calls == embeds or quick.embed_calls == quick_embeds:
            time.sleep(0.01)  # the database engine is blocked; the API engine has embedded
        time.sleep(0.2)  # (its commit would have happened by now without the gate)
        during = [_sources_with_term(backend) for _ in range(5)]
    finally:
        slow.block.set()
        updater.join(60)
        stop.set()
        searcher.join(60)
    after = _sources_with_term(backend)
    backend.close(10)
    assert during == [frozenset()] * 5  # nothing changed until every engine was ready
    assert after == frozenset(TARGETS)
    assert seen and set(seen) <= {frozenset(), frozenset(TARGETS)}
