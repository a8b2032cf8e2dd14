"""Helpers for snapshot tests: engines over a fake provider and a store."""

from __future__ import annotations

from collections.abc import Callable

from schemaseek.engine import SourceEngine
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import HashProvider


def start(
    manager: SnapshotManager,
    schema: SourceSchema | Callable[[], SourceSchema],
    provider: HashProvider | None = None,
) -> SourceEngine:
    """A started engine for ``schema`` (phase two awaited)."""
    fetch = schema if callable(schema) else (lambda: schema)
    engine = SourceEngine("shop", fetch, provider=provider or HashProvider(), snapshots=manager)
    engine.init(wait=True)
    return engine
