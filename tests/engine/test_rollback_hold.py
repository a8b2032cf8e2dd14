"""Rollback semantics: a rolled-back source stays on its generation until the live schema
changes again or the hold is released (an admin's explicit refresh), also across a restart;
polls that see the same live schema keep it."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from schemaseek.engine import SourceEngine
from schemaseek.engine.units import EngineUnit, ServingUnit
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.store import open_store
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import HashProvider, catalog


class Live:
    """The source as it is now; the test edits it."""

    def __init__(self) -> None:
        self.schema = catalog(6, salt="first")

    def __call__(self) -> SourceSchema:
        return self.schema


def _factory(
    provider: HashProvider, manager: SnapshotManager
) -> Callable[[str, Callable[[], SourceSchema]], SourceEngine]:
    def make(name: str, fetch: Callable[[], SourceSchema]) -> SourceEngine:
        return SourceEngine(name, fetch, provider=provider, snapshots=manager, breaker=None)

    return make


def _salt(unit: ServingUnit) -> str:
    index = unit.index
    assert index is not None
    return next(iter(index.documents.values())).description.split()[-1]


def _started(unit: ServingUnit) -> ServingUnit:
    future = unit.start()
    assert future is not None
    future.result(30)
    return unit


def test_a_rollback_holds_until_the_schema_changes_again() -> None:
    live, provider = Live(), HashProvider()
    manager = SnapshotManager(open_store(f"memory://hold-{uuid.uuid4().hex}"))
    factory = _factory(provider, manager)
    unit = _started(EngineUnit("shop", live, factory))
    first = unit.generation
    assert first is not None and _salt(unit) == "first"
    live.schema = catalog(6, salt="second")
    unit.refresh().result(30)
    assert _salt(unit) == "second"

    held = _started(unit.rollback(first))
    unit.destroy(5)
    assert _salt(held) == "first"
    report = held.refresh().result(30)  # a poll: the live schema is as it was
    assert report.held and not report.error and _salt(held) == "first"

    restarted = _started(EngineUnit("shop", live, factory))  # a restart keeps the hold
    assert _salt(restarted) == "first" and restarted.refresh().result(30).held
    restarted.destroy(5)

    live.schema = catalog(6, salt="third")  # the source changes again: applied
    report = held.refresh().result(30)
    assert not report.held and _salt(held) == "third"
    assert held.refresh().result(30).held is False
    held.destroy(5)


def test_releasing_the_hold_applies_the_live_schema() -> None:
    live, provider = Live(), HashProvider()
    manager = SnapshotManager(open_store(f"memory://release-{uuid.uuid4().hex}"))
    unit = _started(EngineUnit("shop", live, _factory(provider, manager)))
    first = unit.generation
    assert first is not None
    live.schema = catalog(6, salt="second")
    unit.refresh().result(30)
    held = _started(unit.rollback(first))
    unit.destroy(5)
    assert held.refresh().result(30).held and _salt(held) == "first"
    assert held.release_rollback() and not held.release_rollback()
    report = held.refresh().result(30)
    assert not report.held and _salt(held) == "second"
    held.destroy(5)
