"""Three replicas, one shared store (a directory, or S3 on moto's server), real Redis: one
replica embeds and saves, the others load what it announces."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import wait
from pathlib import Path

import pytest

from schemaseek.cluster import ReplicaUnit
from schemaseek.engine import SourceEngine
from schemaseek.errors import CoordinationError
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.s3 import S3Store
from schemaseek.snapshots.store import SnapshotStore
from schemaseek.sources.base import SourceSchema
from tests.cluster.conftest import PrivateRedis, free_port
from tests.cluster.harness import SOURCE, Source, embedded, generations, replicas, wait_until
from tests.engine.fakes import HashProvider, catalog, schema_of

pytestmark = pytest.mark.services

Stores = Callable[[], SnapshotStore]


def reworded(count: int, changed: int) -> SourceSchema:
    """``catalog(count)`` with the descriptions of its first ``changed`` tables reworded."""
    docs = list(catalog(count).documents)
    docs[:changed] = catalog(changed, salt="reworded").documents
    return schema_of(SOURCE, docs)


@pytest.fixture(params=["directory", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    if request.param == "directory":
        return lambda: LocalDirStore(tmp_path / "shared")
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return lambda: S3Store(bucket, "team/search", endpoint_url=endpoint)


def test_cold_start_and_a_change_embed_once_in_total(
    store: Stores, redis_url: str, redis_prefix: str
) -> None:
    source = Source(catalog(60))
    with replicas(3, source, store, redis_url, redis_prefix) as group:
        started = [r.unit.start() for r in group]
        done, _ = wait(started, timeout=60)
        assert len(done) == 3 and all(f.exception() is None for f in started)
        wait_until(lambda: len(generations(group)) == 1 and None not in generations(group))
        assert embedded(group) == 60  # not 3 × 60
        builders = [r for r in group if r.provider.embedded_texts]
        assert len(builders) == 1
        assert source.fetches == 1  # the others never read the source
        assert all(r.unit.state == "ready" for r in group)
        builder = builders[0].coordinator.replica_id
        followers = [r for r in group if r is not builders[0]]
        wait_until(
            lambda: all(r.unit.coordination().get("phase") == "announced" for r in followers)
        )
        for follower in followers:  # the holder's progress reached them
            seen = follower.unit.coordination()
            assert seen["lease_holder"] == builder and seen["role"] == "follower"
            assert seen["done"] == seen["total"] == "60"
        answers = {tuple(r.unit.engine.search("customer payment", limit=5).ids()) for r in group}
        assert len(answers) == 1

        first = group[0].unit.generation
        source.schema = reworded(60, 5)
        reports = [f.result(60) for f in [r.unit.refresh() for r in group]]
        wait_until(lambda: len(generations(group)) == 1 and first not in generations(group))
        assert embedded(group) == 60 + 5
        assert sum(r.embedded for r in reports) == 5
        assert [r.save_error for r in reports] == [None, None, None]
        manifests = group[1].manager.generations(SOURCE)
        assert manifests[0].generation == group[2].unit.generation
        assert all(r.unit.coordination()["redis"] == "up" for r in group)


def test_a_stalled_holder_is_taken_over_and_its_late_save_is_refused(
    store: Stores, redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = Source(catalog(40))
    with replicas(3, source, store, redis_url, redis_prefix, lease_ttl_s=0.5) as group:
        stalled, others = group[0], group[1:]
        stalled.provider.block = threading.Event()
        first = stalled.unit.start()
        wait_until(lambda: stalled.provider.embed_calls > 0, what="the holder to embed")
        stale_token = int(stalled.unit.coordination()["token"])
        # it stops renewing, as a paused process would, and believes it still holds the lease
        monkeypatch.setattr(stalled.coordinator, "renew", lambda lease: True)
        started = [r.unit.start() for r in others]
        assert all(f.result(60).error is None for f in started)
        taker = next(r for r in others if r.provider.embedded_texts)
        new_generation = taker.unit.generation
        assert {r.unit.generation for r in others} == {new_generation}
        assert taker.manager.highest_token(SOURCE) > stale_token

        stalled.provider.block.set()  # the paused holder wakes up and tries to save
        late = first.result(60)
        assert "fencing token" in str(late.save_error)
        fingerprint = stalled.unit.fingerprint
        assert not stalled.coordinator.announce(SOURCE, fingerprint, "late", stale_token)
        wait_until(lambda: generations(group) == {new_generation})
        tokens = [
            g.manifest.extra["fencing_token"] if g.manifest else 0
            for g in taker.manager.generations(SOURCE)
        ]
        assert tokens and min(tokens) > stale_token  # nothing the stale holder wrote landed
        active = taker.coordinator.active(SOURCE, fingerprint)
        assert active is not None and active.generation == new_generation


def test_replicas_serve_through_a_redis_restart_and_recover(
    tmp_path: Path, private_redis: PrivateRedis
) -> None:
    source = Source(catalog(40))
    shared = tmp_path / "shared"
    with replicas(3, source, lambda: LocalDirStore(shared), private_redis.url, "t:") as group:
        assert all(f.result(60).error is None for f in [r.unit.start() for r in group])
        wait_until(lambda: len(generations(group)) == 1)
        before = group[0].unit.generation

        private_redis.stop()
        wait_until(lambda: all(r.unit.state == "degraded" for r in group), what="degraded")
        assert all(r.unit.engine.search("customer payment").hits for r in group)
        assert all(r.unit.coordination()["redis"] == "down" for r in group)
        source.schema = reworded(40, 3)
        reports = [f.result(30) for f in [r.unit.refresh() for r in group]]
        assert all("suspended" in str(r.error) for r in reports)
        assert embedded(group) == 40 and generations(group) == {before}

        private_redis.start()  # empty: no lease, token counter or announcement survived
        wait_until(lambda: all(r.coordinator.healthy for r in group), what="reconnection")
        reports = [f.result(60) for f in [r.unit.refresh() for r in group]]
        wait_until(lambda: len(generations(group)) == 1 and before not in generations(group))
        assert embedded(group) == 40 + 3
        assert all(r.unit.state == "ready" for r in group)
        assert sum(r.embedded for r in reports) == 3


def test_start_while_redis_is_down(tmp_path: Path) -> None:
    down = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    shared = tmp_path / "shared"
    source = Source(catalog(30))
    seed = SourceEngine(SOURCE, source, provider=HashProvider(), snapshots=SnapshotManager(
        LocalDirStore(shared)))  # fmt: skip
    seed.init(wait=True)
    seed.destroy()
    fetched = source.fetches
    with replicas(1, source, lambda: LocalDirStore(shared), down, "x:", startup_wait_s=0.2) as [r]:
        report = r.unit.start().result(30)  # a valid generation: serve it, degraded
        assert report.generation == seed.generation and r.unit.state == "degraded"
        assert r.provider.embedded_texts == 0 and source.fetches == fetched
        assert "suspended" in r.unit.coordination()["reason"]
        assert "suspended" in str(r.unit.refresh().result(30).error)
    empty = tmp_path / "empty"
    with replicas(1, source, lambda: LocalDirStore(empty), down, "x:", startup_wait_s=0.2) as [r]:
        with pytest.raises(CoordinationError, match="no valid generation"):
            r.unit.start().result(30)
        assert r.unit.state == "failed" and source.fetches == fetched


def test_an_unreadable_announcement_keeps_the_previous_generation(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    source = Source(catalog(30))
    shared = tmp_path / "shared"
    with replicas(2, source, lambda: LocalDirStore(shared), redis_url, redis_prefix) as group:
        assert all(f.result(60).error is None for f in [r.unit.start() for r in group])
        wait_until(lambda: len(generations(group)) == 1)
        good = group[0].unit.generation
        assert good is not None
        admin = group[0].coordinator
        fingerprint = group[0].unit.fingerprint

        def announce(generation: str) -> None:
            lease = admin.try_acquire(SOURCE, group[0].manager.highest_token(SOURCE))
            assert lease is not None
            assert admin.announce(SOURCE, fingerprint, generation, lease.token)
            admin.release(lease)

        announce("20990101T000000000000Z-000000")  # no such generation in the store
        wait_until(lambda: all(r.unit.state == "degraded" for r in group), what="degraded")
        assert generations(group) == {good}
        assert all("cannot be read" in r.unit.coordination()["reason"] for r in group)
        reports = [f.result(30) for f in [r.unit.refresh() for r in group]]
        assert all("cannot be read" in str(r.error) for r in reports)
        assert embedded(group) == 30 and source.fetches == 1  # no rebuild around it

        announce(good)
        wait_until(lambda: all(r.unit.state == "ready" for r in group), what="healed")


def test_a_rollback_is_announced_to_every_replica(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    source = Source(catalog(30))
    shared = tmp_path / "shared"
    with replicas(3, source, lambda: LocalDirStore(shared), redis_url, redis_prefix) as group:
        assert all(f.result(60).error is None for f in [r.unit.start() for r in group])
        wait_until(lambda: len(generations(group)) == 1)
        first = group[0].unit.generation
        source.schema = reworded(30, 4)
        [f.result(60) for f in [r.unit.refresh() for r in group]]
        wait_until(lambda: len(generations(group)) == 1 and first not in generations(group))

        replaced = group[1].unit.rollback(first or "")
        assert isinstance(replaced, ReplicaUnit)
        try:
            report = replaced.start().result(60)
            copy = replaced.generation
            assert copy not in (None, first) and report.embedded == 0
            manifest = group[1].manager.find(SOURCE, copy or "").manifest
            assert manifest is not None and manifest.rolled_back_from == first
            others = [group[0], group[2]]
            wait_until(lambda: all(r.unit.generation == copy for r in others), what="rollback")
            assert embedded(group) == 30 + 4
        finally:
            replaced.destroy(10)
