"""The service's state: serving units, events, polling, feedback and the glossary.

:class:`Backend` owns one :class:`~schemaseek.engine.units.ServingUnit` per source and is
what the servicers call. :meth:`Backend.start` returns at once: units start on a background
thread (the HTTP server answers ``/health/ready`` with 503 meanwhile). A watcher publishes
state changes; breaker transitions, refreshes, glossary updates and rollbacks are published
as they happen.

Searches read the units under :meth:`Backend.reading`; a glossary update commits every unit's
new glossary inside one :class:`~schemaseek.engine.gate.CommitGate`, so no search sees some
units with the old glossary and some with the new (nor a unit half-way). Query embeddings run on
a small pool of their own (:attr:`Backend.embed_pool`) so a search can stop waiting for one at
its deadline.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from schemaseek.config import SearchSettings
from schemaseek.embedding.breaker import BreakerState
from schemaseek.engine import EngineReport, Poller
from schemaseek.engine.gate import CommitGate, ReadWriteLock
from schemaseek.engine.units import ServingUnit
from schemaseek.errors import ConfigError, UnknownSourceError
from schemaseek.federation import known_ids, learn
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary
from schemaseek.glossary_lint import warn_unresolved
from schemaseek.recent import RecentQueries
from schemaseek.service.events import EventBus

__all__ = ["Backend", "overall_status"]

logger = logging.getLogger(__name__)

SERVING = ("ready", "degraded")


def overall_status(states: Sequence[str], circuits: Sequence[dict[str, str]]) -> str:
    """``ready`` when every unit is; ``degraded`` when one can serve; else ``unavailable``
    (also when every circuit of every unit is open)."""
    if not states or not any(s in SERVING for s in states):
        return "unavailable"
    all_open = [c for c in circuits if c]
    if all_open and all(all(v == "open" for v in c.values()) for c in all_open):
        return "unavailable"
    return "ready" if all(s == "ready" for s in states) else "degraded"


def _apply_glossary(unit: ServingUnit, _future: Future[EngineReport]) -> None:
    unit.apply_glossary()


class _Poller(Poller):
    """A :class:`Poller` that remembers when its next run is due."""

    next_at = 0.0

    def next_delay(self) -> float:
        delay = super().next_delay()
        self.next_at = time.time() + delay
        return delay


class Backend:
    """See the module docstring."""

    def __init__(
        self,
        units: Sequence[ServingUnit],
        *,
        settings: SearchSettings,
        glossary: Glossary,
        feedback: FeedbackStore,
        events: EventBus | None = None,
        glossary_path: Path | None = None,
        poll_interval_s: float | None = None,
        poll_jitter: float = 0.1,
        source_polls: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        """``source_polls``: source → (interval s, jitter) for sources polled on their own
        schedule (``GRAPHQL_POLL_*``, ``SNOWFLAKE_POLL_*``); the rest share the service's."""
        if not units:
            raise ConfigError("the service needs at least one source")
        self.units: list[ServingUnit] = list(units)
        self.settings = settings
        self.glossary = glossary
        self.feedback = feedback
        self.recent: RecentQueries = feedback.recent
        """Where searches are remembered by ``query_id`` (the feedback store's, which the
        mounted MCP server shares)."""
        self.events = events or EventBus()
        self.glossary_path = glossary_path
        self.poll_interval_s = poll_interval_s
        self.poller: _Poller | None = None
        self.pollers: dict[str, _Poller] = {}
        if poll_interval_s:
            self.poller = _Poller(
                self.refresh_all, poll_interval_s, jitter=poll_jitter, name="schemaseek-poll"
            )
            for name, (interval, jitter) in (source_polls or {}).items():
                self.pollers[name] = _Poller(
                    functools.partial(self.refresh, name), interval, jitter=jitter,
                    name=f"schemaseek-poll-{name}",
                )  # fmt: skip
        self.refresh_outcomes: dict[tuple[str, str], int] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._states: dict[str, str] = {}
        self._coordination: dict[str, dict[str, str]] = {}
        self.started = threading.Event()
        self.view = ReadWriteLock()
        self.embed_pool = ThreadPoolExecutor(4, thread_name_prefix="schemaseek-embed")
        self.commit_timeout_s = 300.0

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start units, the watcher and the poller on background threads."""
        threading.Thread(target=self._start_units, name="schemaseek-start", daemon=True).start()
        threading.Thread(target=self._watch, name="schemaseek-watch", daemon=True).start()

    def _start_units(self) -> None:
        for unit in list(self.units):
            self._attach(unit)
            self.events.publish("engine_starting", unit.name, "starting")
            unit.set_glossary(self.glossary)
            try:
                future = unit.start()
            except Exception as exc:
                logger.error("engine %r could not start: %s", unit.name, exc)
                self.events.publish("engine_failed", unit.name, str(exc))
                continue
            if future is not None:
                self._track(unit, future, "start")
                future.add_done_callback(functools.partial(_apply_glossary, unit))
        schemas = [schema for unit in self.units if (schema := unit.schema()) is not None]
        if len(schemas) == len(self.units):  # a source that failed to load would look missing
            warn_unresolved(self.glossary, schemas)
        self._replay_feedback()
        self.started.set()
        if self.poller is not None:
            self.poller.start()
        for poller in self.pollers.values():
            poller.start()

    def _attach(self, unit: ServingUnit) -> None:
        def on_breaker(name: str, old: BreakerState, new: BreakerState) -> None:
            self.events.publish(
                "breaker_changed", unit.name, f"circuit {name}: {old.value} → {new.value}",
                circuit=name, old=old.value, new=new.value,
            )  # fmt: skip

        unit.add_breaker_listener(on_breaker)

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            for unit in list(self.units):
                state = unit.state
                before = self._states.get(unit.name)
                if state != before:
                    self._states[unit.name] = state
                    self.events.publish(
                        "state_changed", unit.name, f"{before or 'new'} → {state}",
                        old=before or "", new=state,
                    )  # fmt: skip
                self._watch_coordination(unit)

    def _watch_coordination(self, unit: ServingUnit) -> None:
        """Publish a ``coordination`` event when a replica's role, lease or build progress
        changed (other replicas' builds included)."""
        now = unit.coordination()
        if now and now != self._coordination.get(unit.name):
            self._coordination[unit.name] = now
            phase = now.get("phase", "")
            progress = f" {now.get('done', '')}/{now.get('total', '')}" if phase else ""
            message = f"{now.get('role')}; {phase or 'idle'}{progress}; redis {now.get('redis')}"
            self.events.publish("coordination", unit.name, message, **now)

    def close(self, timeout: float = 10.0) -> bool:
        """Stop polling and watching, destroy every unit, end event streams."""
        self._stop.set()
        ok = True
        for poller in [self.poller, *self.pollers.values()]:
            if poller is not None:
                ok &= poller.stop(timeout)
        for unit in list(self.units):
            ok &= unit.destroy(timeout)
        self.events.close()
        self.embed_pool.shutdown(wait=False, cancel_futures=True)
        return ok

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    @contextlib.contextmanager
    def reading(self, timeout: float | None = None) -> Iterator[list[ServingUnit]]:
        """The units, held so that no glossary commit happens while the block runs."""
        with self.view.reading(timeout):
            yield list(self.units)

    # -- status ---------------------------------------------------------------------------

    def unit(self, source: str) -> ServingUnit:
        """The unit of ``source``; :class:`UnknownSourceError` (``not_found``) otherwise."""
        for unit in self.units:
            if unit.name == source:
                return unit
        names = ", ".join(u.name for u in self.units)
        raise UnknownSourceError(f"unknown source {source!r}; sources served: {names}")

    def status(self) -> str:
        return overall_status([u.state for u in self.units], [u.circuits() for u in self.units])

    def readiness(self) -> dict[str, Any]:
        """The ``/health/ready`` body."""
        engines = {}
        for unit in self.units:
            index = unit.index
            engines[unit.name] = {
                "state": unit.state,
                "documents": index.document_count if index is not None else 0,
                "generation": unit.generation,
                "circuits": unit.circuits(),
            }
            coordination = unit.coordination()
            if coordination:
                engines[unit.name]["coordination"] = coordination
        return {"status": self.status(), "engines": engines}

    # -- refresh --------------------------------------------------------------------------

    def refresh(
        self, source: str | None = None, *, release: bool = False
    ) -> list[Future[EngineReport]]:
        """Queue a refresh of one unit (or all); events are published as they end. With
        ``release`` (an admin's explicit refresh) a rollback hold ends first, so the live
        schema is applied; polls keep it."""
        targets = [self.unit(source)] if source else list(self.units)
        futures = []
        for unit in targets:
            if unit.index is None:
                continue
            if release and unit.release_rollback():
                self.events.publish("rollback_released", unit.name, "applying the live schema")
            self.events.publish("refresh_started", unit.name, "refresh requested")
            future = unit.refresh()
            self._track(unit, future, "refresh")
            futures.append(future)
        return futures

    def refresh_all(self) -> None:
        """The shared poller's action: every source without a schedule of its own."""
        for unit in list(self.units):
            if unit.name not in self.pollers:
                self.refresh(unit.name)

    def poll_schedule(self, source: str) -> tuple[float, float]:
        """(interval s, unix time of the next poll) of ``source``; (0, 0) when not polled."""
        poller = self.pollers.get(source) or self.poller
        if poller is None:
            return 0.0, 0.0
        return poller.interval_s, poller.next_at

    def _track(self, unit: ServingUnit, future: Future[EngineReport], what: str) -> None:
        def done(f: Future[EngineReport]) -> None:
            if f.cancelled():
                return
            error = f.exception()
            report = f.result() if error is None else None
            failed = error is not None or (report is not None and report.error)
            message = str(error) if error else (report.error if report else None)
            changed = report is not None and (report.added or report.changed or report.removed)
            outcome = "error" if failed else ("changed" if changed or what == "start" else "noop")
            if report is not None and report.held and not failed:
                outcome, message = "held", message or "held on its rolled-back generation"
            with self._lock:
                key = (unit.name, outcome)
                self.refresh_outcomes[key] = self.refresh_outcomes.get(key, 0) + 1
            self.events.publish(
                "refresh_finished", unit.name, message or f"{what} finished",
                kind=what, outcome=outcome,
                documents=report.documents if report else None,
                embedded=report.embedded if report else None,
                generation=report.generation if report else None,
            )  # fmt: skip

        future.add_done_callback(done)

    # -- glossary -------------------------------------------------------------------------

    def update_glossary(self, glossary: Glossary, timeout: float = 120.0) -> list[EngineReport]:
        """Hand each unit its part of ``glossary`` and refresh them all (re-embedding only
        documents whose glossary context changed); every unit commits inside one gate, so
        searches see the old glossary everywhere or the new one everywhere. When a unit cannot
        prepare its part nothing changes (the reports say why); else the glossary is
        persisted."""
        with self._lock:
            old = self.glossary
            units = [u for u in self.units if u.index is not None]
            for unit in self.units:
                unit.set_glossary(glossary)
            committed = False
            try:
                reports = self._commit_all(units, timeout)
                committed = not any(r.error for r in reports)
            finally:
                if not committed:  # nothing changed: the units keep the old glossary
                    for unit in self.units:
                        unit.set_glossary(old)
            if not committed:
                return reports
            self.glossary = glossary
            for unit in self.units:
                if unit.index is None:
                    unit.apply_glossary()
            self._persist_glossary(glossary)
        self.events.publish(
            "glossary_updated", "", f"{len(glossary.entries)} entries applied",
            entries=len(glossary.entries),
        )  # fmt: skip
        return reports

    def _commit_all(self, units: Sequence[ServingUnit], timeout: float) -> list[EngineReport]:
        """Refresh ``units`` so that they commit inside one gate; their reports."""
        if not units:
            return []
        gate = CommitGate(len(units), self.view, timeout=self.commit_timeout_s)
        futures = [unit.refresh(gate.party()) for unit in units]
        return [future.result(timeout) for future in futures]

    def _persist_glossary(self, glossary: Glossary) -> None:
        if self.glossary_path is None:
            return
        self.glossary_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.glossary_path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(glossary.model_dump(mode="json"), ensure_ascii=False, indent=1),
            encoding="utf-8",
        )
        tmp.replace(self.glossary_path)

    def glossary_of(self, unit: ServingUnit) -> Glossary:
        """The entries of the glossary that reference ``unit``'s items."""
        schema = unit.schema()
        return self.glossary.narrowed_to(schema) if schema is not None else self.glossary

    # -- snapshots ------------------------------------------------------------------------

    def rollback(self, source: str, generation: str, timeout: float = 60.0) -> ServingUnit:
        """Serve ``generation`` of ``source`` again: a new unit starts from it and replaces
        the current one once it serves."""
        with self._lock:
            old = self.unit(source)
            new = old.rollback(generation)
            self._attach(new)
            future = new.start()
            if future is not None:
                future.result(timeout)
            self.units[self.units.index(old)] = new
        old.destroy(timeout)
        self.events.publish(
            "snapshot_rolled_back", source, f"serving {new.generation} (from {generation})",
            generation=new.generation, rolled_back_from=generation,
        )  # fmt: skip
        return new

    # -- feedback -------------------------------------------------------------------------

    def record_usage(self, query_id: str, ids: Sequence[str]) -> tuple[bool, list[str], bool]:
        """Persist a usage report (its question is the one :attr:`recent` remembers for
        ``query_id``); returns (recorded, unknown ids, learned by the ranking)."""
        known, unknown = known_ids(self.units, ids)
        if not known:
            return False, unknown, False
        event = self.feedback.record(query_id, known)
        return True, unknown, learn(self.units, event.query, known)

    def _replay_feedback(self) -> None:
        """Feed stored usage events back to the ranking after a (re)start."""
        try:
            events = self.feedback.events()
        except OSError as exc:
            logger.warning("could not read the feedback file: %s", exc)
            return
        learned = sum(learn(self.units, e.query, e.selected_ids) for e in events)
        if events:
            logger.info("replayed %d usage events (%d learned)", len(events), learned)
