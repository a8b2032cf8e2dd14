"""The service's backend over replica units: the build progress of another replica becomes
``coordination`` events and ``/health/ready`` detail; a source polled on its own schedule."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemaseek.config import SearchSettings
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary
from schemaseek.service.backend import Backend
from schemaseek.snapshots.local import LocalDirStore
from tests.cluster.harness import Source, generations, replicas, wait_until
from tests.engine.fakes import catalog

pytestmark = pytest.mark.services


def test_progress_of_another_replica_becomes_events(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    shared = tmp_path / "shared"
    source = Source(catalog(20))
    with replicas(2, source, lambda: LocalDirStore(shared), redis_url, redis_prefix) as group:
        builder, watched = group
        assert builder.unit.start().result(60).error is None  # builds before the other starts
        backend = Backend(
            [watched.unit], settings=SearchSettings(), glossary=Glossary(),
            feedback=FeedbackStore(), poll_interval_s=3600.0,
            source_polls={"shop": (60.0, 0.1)},
        )  # fmt: skip
        backend.start()
        try:
            wait_until(lambda: len(generations(group)) == 1 and backend.status() == "ready")
            assert backend.poll_schedule("shop")[0] == 60.0  # its own schedule, not 3600 s
            source.schema = catalog(20, salt="changed")
            assert builder.unit.refresh().result(60).embedded == 20
            wait_until(
                lambda: any(
                    e.type == "coordination" and e.attributes.get("phase") == "announced"
                    for e in backend.events.recent()
                ),
                what="a coordination event",
            )
            event = next(e for e in backend.events.recent() if e.type == "coordination")
            assert event.source == "shop" and event.attributes["lease_holder"] == "r0"
            engine = backend.readiness()["engines"]["shop"]
            assert engine["coordination"]["redis"] == "up"
        finally:
            backend.close(10)
