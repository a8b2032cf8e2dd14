"""Serving units: one source's searchable index with its lifecycle, behind one interface.

:class:`ServingUnit` is the small interface a long-running server needs (state, index,
refresh, glossary, snapshots, circuits); the network service and the MCP server federate
searches over units (:mod:`schemaseek.federation`). :class:`EngineUnit` adapts a lifecycle
:class:`~schemaseek.engine.SourceEngine` (two-phase start, snapshot generations, circuit
breakers); :class:`IndexUnit` adapts a plain :class:`~schemaseek.index.SchemaIndex` (rebuilt
on refresh, no snapshots), for embedding the service around an index built elsewhere.

A unit's refresh may commit together with other units' (``party``, see
:mod:`schemaseek.engine.gate`): a glossary update then reaches every unit at one instant.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from schemaseek.embedding.breaker import Listener
from schemaseek.engine import persistence
from schemaseek.engine.core import SourceEngine
from schemaseek.engine.gate import Party
from schemaseek.engine.report import EngineReport, EngineState
from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema

__all__ = ["EngineFactory", "EngineUnit", "IndexUnit", "ServingUnit"]

logger = logging.getLogger(__name__)

#: ``(name, fetch) -> SourceEngine``: how an :class:`EngineUnit` (re)creates its engine.
EngineFactory = Callable[[str, Callable[[], SourceSchema]], SourceEngine]


class ServingUnit(Protocol):
    """What the service needs from one source's engine."""

    name: str

    @property
    def index(self) -> SchemaIndex | None:
        """The index to search, or None while nothing can be served."""
        ...

    @property
    def state(self) -> str:
        """initializing, degraded, ready, failed or destroyed."""
        ...

    @property
    def generation(self) -> str | None: ...

    @property
    def last_report(self) -> EngineReport | None: ...

    @property
    def snapshots(self) -> SnapshotManager | None: ...

    def circuits(self) -> dict[str, str]:
        """Circuit name → state (empty without breakers)."""
        ...

    def add_breaker_listener(self, listener: Listener) -> None: ...

    def coordination(self) -> dict[str, str]:
        """How this replica coordinates with others (role, lease, progress; empty when it
        runs alone)."""
        ...

    def start(self) -> Future[EngineReport] | None:
        """Start serving (phase one in this call); the future is the background phase two."""
        ...

    def refresh(self, party: Party | None = None) -> Future[EngineReport]:
        """Fetch and apply the source (committing inside ``party``'s gate when given)."""
        ...

    def release_rollback(self) -> bool:
        """End a rollback hold (the next refresh applies the live schema); True if held."""
        ...

    def set_glossary(self, glossary: Glossary) -> None:
        """Use ``glossary`` from the next refresh on (call :meth:`apply_glossary` after)."""
        ...

    def apply_glossary(self) -> None:
        """Make the current glossary's matcher serve now (after a refresh)."""
        ...

    def schema(self) -> SourceSchema | None:
        """The source schema being served."""
        ...

    def rollback(self, generation: str) -> ServingUnit:
        """A new unit serving ``generation`` and holding on it (this one is left to be
        destroyed)."""
        ...

    def destroy(self, timeout: float | None = None) -> bool: ...


class EngineUnit:
    """A :class:`SourceEngine` behind the :class:`ServingUnit` interface."""

    def __init__(
        self,
        name: str,
        fetch: Callable[[], SourceSchema],
        factory: EngineFactory,
        glossary: Glossary | None = None,
    ) -> None:
        self.name = name
        self._fetch = fetch
        self._factory = factory
        self.glossary = glossary or Glossary()
        self.engine = factory(name, self._narrowing_fetch)
        self._listeners: list[Listener] = []

    def _narrowing_fetch(self) -> SourceSchema:
        """Fetch, and narrow the glossary to the fetched source before the engine uses it."""
        schema = self._fetch()
        self.engine.index.glossary = self.glossary.narrowed_to(schema)
        return schema

    @property
    def index(self) -> SchemaIndex | None:
        return self.engine.index if self.engine.index.built else None

    @property
    def state(self) -> str:
        return self.engine.state.value

    @property
    def generation(self) -> str | None:
        return self.engine.generation

    @property
    def last_report(self) -> EngineReport | None:
        return self.engine.last_report

    @property
    def snapshots(self) -> SnapshotManager | None:
        return self.engine.snapshots

    def circuits(self) -> dict[str, str]:
        breakers = self.engine.breakers
        if breakers is None:
            return {}
        return {
            "embed": breakers.embed_breaker.state.value,
            "embed_query": breakers.query_breaker.state.value,
        }

    def coordination(self) -> dict[str, str]:
        return {}

    def add_breaker_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)
        breakers = self.engine.breakers
        if breakers is not None:
            breakers.embed_breaker.add_listener(listener)
            breakers.query_breaker.add_listener(listener)

    def start(self) -> Future[EngineReport] | None:
        return self.engine.init()

    def refresh(self, party: Party | None = None) -> Future[EngineReport]:
        return self.engine.refresh(party)

    def release_rollback(self) -> bool:
        return self.engine.release_hold()

    def set_glossary(self, glossary: Glossary) -> None:
        self.glossary = glossary
        schema = self.schema()
        self.engine.index.glossary = glossary.narrowed_to(schema) if schema else glossary

    def apply_glossary(self) -> None:
        schema = self.schema()
        index = self.engine.index
        index.reload_glossary(self.glossary.narrowed_to(schema) if schema else index.glossary)

    def schema(self) -> SourceSchema | None:
        sources = self.engine.index.sources
        return sources[0] if sources else None

    def rollback(self, generation: str) -> ServingUnit:
        manager = self.engine.snapshots
        if manager is None:
            raise ConfigError("snapshots are not configured (set SCHEMASEEK_SNAPSHOT_DIR)")
        live_hash = self.engine.live_schema_hash  # the hold's baseline
        manager.rollback(
            self.name,
            generation,
            extra={persistence.HOLD: True, persistence.HOLD_LIVE_HASH: live_hash},
        )
        unit = EngineUnit(self.name, self._fetch, self._factory, self.glossary)
        for listener in self._listeners:
            unit.add_breaker_listener(listener)
        return unit

    def destroy(self, timeout: float | None = None) -> bool:
        return self.engine.destroy(timeout)


class IndexUnit:
    """A plain :class:`SchemaIndex` behind the :class:`ServingUnit` interface: refresh
    rebuilds it (reusing the vectors of unchanged documents)."""

    def __init__(self, name: str, index: SchemaIndex) -> None:
        self.name = name
        self._index = index
        self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"unit-{name}")
        self._report: EngineReport | None = None
        self._destroyed = False

    @property
    def index(self) -> SchemaIndex | None:
        return self._index if self._index.built else None

    @property
    def state(self) -> str:
        if self._destroyed:
            return EngineState.DESTROYED.value
        if not self._index.built:
            return EngineState.INITIALIZING.value
        return (EngineState.DEGRADED if self._index.degraded else EngineState.READY).value

    @property
    def generation(self) -> str | None:
        return None

    @property
    def last_report(self) -> EngineReport | None:
        return self._report

    @property
    def snapshots(self) -> SnapshotManager | None:
        return None

    def circuits(self) -> dict[str, str]:
        return {}

    def add_breaker_listener(self, listener: Listener) -> None:
        return None

    def coordination(self) -> dict[str, str]:
        return {}

    def start(self) -> Future[EngineReport] | None:
        return None if self._index.built else self.refresh()

    def refresh(self, party: Party | None = None) -> Future[EngineReport]:
        return self._worker.submit(self._build, party)

    def release_rollback(self) -> bool:
        return False

    def _build(self, party: Party | None = None) -> EngineReport:
        """Rebuild in place; with a ``party``, build a new index beside the served one and
        serve it inside the gate."""
        started = time.perf_counter()
        try:
            if party is None:
                built = self._index.build()
            else:
                old = self._index
                fresh = SchemaIndex(
                    old.sources, glossary=old.glossary, provider=old.provider,
                    settings=old.settings, reranker=old.reranker,
                )  # fmt: skip
                built = fresh.build(reuse=[old])
                with party:
                    self._index = fresh
        except Exception as exc:
            logger.warning("rebuilding index %r failed: %s", self.name, exc)
            report = EngineReport(self.name, 0, 0, 0, error=str(exc))
        else:
            report = EngineReport(
                self.name,
                built.documents,
                built.embedded,
                built.documents - built.embedded,
                took_s=time.perf_counter() - started,
                degraded=built.degraded,
            )
        finally:
            if party is not None:
                party.abort()  # a no-op once it committed
        self._report = report
        return report

    def set_glossary(self, glossary: Glossary) -> None:
        self._index.glossary = glossary

    def apply_glossary(self) -> None:
        self._index.reload_glossary(self._index.glossary)

    def schema(self) -> SourceSchema | None:
        return self._index.sources[0] if len(self._index.sources) == 1 else None

    def rollback(self, generation: str) -> ServingUnit:
        raise ConfigError("this index has no snapshot generations to roll back to")

    def destroy(self, timeout: float | None = None) -> bool:
        self._destroyed = True
        self._worker.shutdown(wait=timeout is None or timeout > 0, cancel_futures=True)
        return True
