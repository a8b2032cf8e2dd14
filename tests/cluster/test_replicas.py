"""Three replicas, one shared store (a directory, or S3 on moto's server), real Redis: one
replica embeds and saves, the others load what it announces."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import wait
from pathlib import Path

import pytest

from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.s3 import S3Store
from schemaseek.snapshots.store import SnapshotStore
from schemaseek.sources.base import SourceSchema
from tests.cluster.harness import SOURCE, Source, embedded, generations, replicas, wait_until
from tests.engine.fakes import catalog, schema_of

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
        answers = {tuple(r.unit.engine.search("customer payment", limit=5).ids()) for r in group}
        assert len(answers) == 1

        first = group[0].unit.generation
        source.schema = reworded(60, 5)
        reports = [f.result(60) for f in [r.unit.refresh() for r in group]]
        wait_until(lambda: len(generations(group)) == 1 and first not in generations(group))
        assert embedded(group) == 60 + 5
        assert sum(r.embedded for r in reports) == 5
        assert [r.extra.get("save_error") for r in reports] == [None, None, None]
        manifests = group[1].manager.generations(SOURCE)
        assert manifests[0].generation == group[2].unit.generation
        assert all(r.unit.coordination()["redis"] == "up" for r in group)
