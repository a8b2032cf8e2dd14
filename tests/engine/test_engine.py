"""The per-source engine: two-phase start, refresh (dedup, diff, failure), circuit breakers,
destroy, and the polling helper."""

from __future__ import annotations

import random
import threading
import time

import pytest

from schemaseek.embedding.breaker import BreakerConfig, BreakerState, Strategy
from schemaseek.engine import EngineState, Poller, SourceEngine
from schemaseek.errors import ConfigError
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.memory import MemoryStore
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import FakeClock, HashProvider, catalog, schema_of, table


def state(engine: SourceEngine) -> EngineState:
    """The state now (a call, so that mypy does not carry a narrowed state across actions)."""
    return engine.state


class Source:
    """A fetchable source whose schema the test swaps; counts fetches."""

    def __init__(self, schema: SourceSchema) -> None:
        self.schema = schema
        self.fetches = 0
        self.fail = False

    def __call__(self) -> SourceSchema:
        self.fetches += 1
        if self.fail:
            raise OSError("catalog unreachable")
        return self.schema


def test_two_phase_start_serves_keyword_first() -> None:
    provider = HashProvider()
    provider.block = threading.Event()
    engine = SourceEngine("shop", Source(catalog(80)), provider=provider, embed_batch=16)
    future = engine.init()
    assert state(engine) is EngineState.DEGRADED
    response = engine.search("customer payment")
    assert response.degraded and response.hits  # keyword + glossary already answer
    provider.block.set()
    report = future.result(10)
    assert state(engine) is EngineState.READY and report.embedded == 80
    assert not engine.search("customer payment").degraded
    assert engine.status()["state"] == "ready" and engine.status()["vectors"] == 80
    with pytest.raises(ConfigError, match="already started"):
        engine.init()
    engine.destroy()


def test_refresh_applies_the_diff_and_embeds_only_changes() -> None:
    docs = [table(f"t{i}", ["id", f"c{i}"], f"table {i}") for i in range(30)]
    source = Source(schema_of("shop", docs))
    provider = HashProvider()
    engine = SourceEngine("shop", source, provider=provider)
    engine.init(wait=True)
    provider.reset()
    changed = [
        *docs[:28],
        table("t28", ["id", "c28", "extra"], "table 28"),
        table("new", ["id"], "brand new invoice"),
    ]
    source.schema = schema_of("shop", changed)
    report = engine.refresh().result(10)
    assert (report.added, report.changed, report.removed) == (1, 1, 1)
    assert report.embedded == 2 == provider.embedded_documents
    assert provider.embedded_words == 2  # the name bridge's new words: "extra", "new"
    assert "shop.t29" not in engine.index.documents and "shop.new" in engine.index.documents
    assert engine.search("brand new invoice").ids()[0] == "shop.new"
    provider.reset()
    again = engine.refresh().result(10)
    assert again.embedded == 0 and provider.embed_calls == 0
    engine.destroy()


def test_concurrent_refreshes_are_deduplicated() -> None:
    provider = HashProvider()
    provider.block = threading.Event()
    source = Source(catalog(20))
    engine = SourceEngine("shop", source, provider=provider)
    engine.init()  # phase two is blocked: refreshes queue behind it
    futures = [engine.refresh() for _ in range(5)]
    assert all(f is futures[0] for f in futures)
    provider.block.set()
    futures[0].result(10)
    assert source.fetches == 2  # the start and one refresh
    engine.destroy()


def test_failing_refresh_keeps_the_index() -> None:
    source = Source(catalog(20))
    provider = HashProvider()
    engine = SourceEngine("shop", source, provider=provider)
    engine.init(wait=True)
    before = engine.search("customer payment").ids()
    source.schema = catalog(25, salt="grown")
    provider.fail = True
    report = engine.refresh().result(10)
    assert report.error and "provider down" in report.error
    provider.fail = False
    assert len(engine.index.documents) == 20 and engine.search("customer payment").ids() == before
    source.fail = True
    assert "unreachable" in (engine.refresh().result(10).error or "")
    source.fail = False
    assert engine.refresh().result(10).documents == 25
    engine.destroy()


def test_open_circuit_degrades_then_recovers_without_restart() -> None:
    clock = FakeClock()
    source = Source(catalog(40))
    provider = HashProvider()
    config = BreakerConfig(strategy=Strategy.CONSECUTIVE, failure_threshold=2, cooldown_s=30.0)
    engine = SourceEngine(
        "shop", source, provider=provider, breaker=config, clock=clock,
        snapshots=SnapshotManager(MemoryStore()),
    )  # fmt: skip
    engine.init(wait=True)
    generation = engine.generation
    assert not engine.search("customer payment").degraded
    provider.fail = True
    assert engine.search("warehouse stock").degraded
    assert engine.search("royalty contract").degraded
    assert engine.breakers is not None
    assert engine.breakers.query_breaker.state is BreakerState.OPEN
    assert state(engine) is EngineState.DEGRADED
    calls = provider.query_calls
    assert engine.search("album release").degraded and provider.query_calls == calls  # fast fail
    # a refresh during the open circuit fails gracefully and keeps the old index
    source.schema = catalog(41, salt="v2")
    for _ in range(2):
        assert engine.refresh().result(10).error
    assert engine.breakers.embed_breaker.state is BreakerState.OPEN
    report = engine.refresh().result(10)
    assert report.error and "circuit 'embed' is open" in report.error
    assert len(engine.index.documents) == 40 and engine.generation == generation
    # the provider recovers; after the cooldown a probe closes the circuits
    provider.fail = False
    clock.advance(30.0)
    assert not engine.search("tax refund").degraded
    assert state(engine) is EngineState.READY
    assert engine.refresh().result(10).documents == 41 and engine.generation != generation
    engine.destroy()


def test_destroy_cancels_background_embedding() -> None:
    class Slow(HashProvider):
        def embed(self, texts, progress=None):  # type: ignore[no-untyped-def]
            time.sleep(0.05)
            return super().embed(texts, progress)

    provider = Slow()
    engine = SourceEngine("shop", Source(catalog(400)), provider=provider, embed_batch=10)
    future = engine.init()
    time.sleep(0.2)
    started = time.perf_counter()
    assert engine.destroy(timeout=5)
    assert time.perf_counter() - started < 1.0
    assert state(engine) is EngineState.DESTROYED
    assert provider.embed_calls < 40  # stopped between batches, long before the end
    assert future.done()
    with pytest.raises(Exception, match="destroyed"):
        engine.refresh()


def test_engine_without_provider_is_keyword_only() -> None:
    engine = SourceEngine("shop", Source(catalog(10)), provider=None)
    report = engine.init(wait=True).result()
    assert state(engine) is EngineState.DEGRADED and report.embedded == 0
    assert engine.search("customer").degraded
    engine.destroy()


def test_search_before_init_is_refused() -> None:
    engine = SourceEngine("shop", Source(catalog(3)), provider=None)
    with pytest.raises(ConfigError, match="init"):
        engine.search("x")
    engine.destroy()


def test_poller_runs_with_jitter_and_survives_failures() -> None:
    calls: list[float] = []

    def action() -> None:
        calls.append(time.monotonic())
        if len(calls) == 2:
            raise RuntimeError("transient")

    poller = Poller(action, 0.05, jitter=0.5, rng=random.Random(1))
    delays = [poller.next_delay() for _ in range(200)]
    assert min(delays) >= 0.025 and max(delays) <= 0.075 and len(set(delays)) > 100
    poller.start()
    deadline = time.monotonic() + 5
    while len(calls) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert poller.stop(timeout=2) and poller.failures == 1 and len(calls) >= 4
    with pytest.raises(ConfigError):
        Poller(action, 0)


def test_refresh_keeps_or_rebuilds_pins_and_graph_as_needed() -> None:
    docs = [table(f"t{i}", ["id"], f"table {i}") for i in range(10)]
    source = Source(schema_of("shop", docs))
    engine = SourceEngine("shop", source, provider=HashProvider())
    engine.init(wait=True)
    graph = engine.index._require().graph
    source.schema = schema_of("shop", [table("t0", ["id"], "now about invoices"), *docs[1:]])
    engine.refresh().result(10)
    parts = engine.index._require()
    assert parts.graph is graph  # same ids, names, targets and edges: nothing re-derived
    assert engine.search("invoices").ids()[0] == "shop.t0"
    assert parts.documents["shop.t0"].description == "now about invoices"
    renamed = [table("ledger", ["id"], "table 0"), *docs[1:]]
    source.schema = schema_of("shop", renamed)
    engine.refresh().result(10)
    assert engine.search("ledger").hits[0].explanation.pinned
    assert engine.index._require().graph is not graph
    engine.destroy()
