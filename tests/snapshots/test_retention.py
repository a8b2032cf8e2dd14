"""Tiered retention: keep all < 1 h, one per hour < 24 h, one per day < 7 d; never < 2 valid."""

from __future__ import annotations

from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.memory import MemoryStore
from schemaseek.snapshots.retention import (
    DAY,
    HOUR,
    Candidate,
    RetentionPolicy,
    compute_retention,
)
from tests.engine.fakes import HashProvider, catalog
from tests.snapshots.conftest import start

NOW = 1_800_000_000.0 - 1_800_000_000.0 % DAY + 12 * HOUR  # noon UTC


def c(name: str, age: float, valid: bool = True) -> Candidate:
    return Candidate(name, NOW - age, valid)


def test_tiers() -> None:
    items = [
        c("fresh1", 60),
        c("fresh2", 30 * 60),
        c("h2a", 2 * HOUR + 60),  # same clock hour as h2b, older
        c("h2b", 2 * HOUR + 30),
        c("h5", 5 * HOUR),
        c("d2a", 2 * DAY + 60),
        c("d2b", 2 * DAY + 30),
        c("d3", 3 * DAY),
        c("old", 8 * DAY),
    ]
    keep = compute_retention(items, NOW)
    assert keep == {"fresh1", "fresh2", "h2b", "h5", "d2b", "d3"}


def test_never_below_two_valid() -> None:
    items = [c("corrupt", 60, valid=False), c("a", 9 * DAY), c("b", 10 * DAY), c("c", 11 * DAY)]
    assert compute_retention(items, NOW) == {"corrupt", "a", "b"}
    assert compute_retention(items, NOW, RetentionPolicy(min_valid=3)) >= {"a", "b", "c"}


def test_valid_generation_wins_its_bucket() -> None:
    items = [c("bad", 3 * HOUR + 10, valid=False), c("good", 3 * HOUR + 20)]
    assert "good" in compute_retention(items, NOW) and "bad" not in compute_retention(
        items, NOW, RetentionPolicy(min_valid=0)
    )


def test_manager_prunes_after_save_and_keeps_the_floor() -> None:
    clock = {"now": NOW - 10 * DAY}
    store = MemoryStore()
    manager = SnapshotManager(store, clock=lambda: clock["now"])
    for step in range(6):
        engine = start(manager, catalog(10, salt=f"v{step}"), HashProvider())
        engine.destroy()
        clock["now"] += 2 * DAY
    # at the last save the ages were 10, 8, 6, 4, 2 and 0 days: the first two are gone
    assert len(manager.generations("shop")) == 4
    clock["now"] += 30 * DAY
    manager.prune("shop", manager.generations("shop")[0].fingerprint)
    assert len(manager.generations("shop")) == 2  # everything is old: the floor of 2 holds
