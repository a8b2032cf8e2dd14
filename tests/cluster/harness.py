"""Several in-process replicas of one source over one shared store and one Redis."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from schemaseek.cluster import RedisCoordinator, ReplicaUnit
from schemaseek.engine import SourceEngine
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.store import SnapshotStore
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import HashProvider

SOURCE = "shop"


class Source:
    """The live schema every replica fetches; the test swaps it. Counts fetches."""

    def __init__(self, schema: SourceSchema) -> None:
        self.schema = schema
        self.fetches = 0

    def __call__(self) -> SourceSchema:
        self.fetches += 1
        return self.schema


@dataclass
class Replica:
    unit: ReplicaUnit
    provider: HashProvider
    coordinator: RedisCoordinator
    manager: SnapshotManager


@contextmanager
def replicas(
    count: int,
    source: Source,
    store: Callable[[], SnapshotStore],
    redis_url: str,
    prefix: str,
    *,
    lease_ttl_s: float = 1.0,
    startup_wait_s: float = 30.0,
) -> Iterator[list[Replica]]:
    """``count`` replicas (ids ``r0``...), each with its own provider, store client and
    Redis connections; destroyed afterwards."""
    made: list[Replica] = []
    try:
        for i in range(count):
            provider = HashProvider()
            manager = SnapshotManager(store())
            coordinator = RedisCoordinator(
                redis_url, prefix=prefix, replica_id=f"r{i}", lease_ttl_s=lease_ttl_s,
                timeout_s=1.0,
            )  # fmt: skip

            def factory(
                name: str,
                fetch: Callable[[], SourceSchema],
                provider: HashProvider = provider,
                manager: SnapshotManager = manager,
            ) -> SourceEngine:
                return SourceEngine(
                    name, fetch, provider=provider, snapshots=manager, embed_batch=8
                )

            unit = ReplicaUnit(
                SOURCE, source, factory, None, coordinator,
                startup_wait_s=startup_wait_s, retry_s=0.05,
            )  # fmt: skip
            made.append(Replica(unit, provider, coordinator, manager))
        yield made
    finally:
        for replica in made:
            replica.unit.destroy(10)
            replica.coordinator.close()


def wait_until(condition: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    """Return once ``condition()`` holds; fail after ``timeout`` seconds (a bound on waiting,
    not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.02)


def embedded(group: Sequence[Replica]) -> int:
    """Documents embedded so far by every replica together (the name bridge's words left out:
    ``r.provider.embedded_texts`` counts both)."""
    return sum(r.provider.embedded_documents for r in group)


def generations(group: Sequence[Replica]) -> set[str | None]:
    return {r.unit.generation for r in group}
