"""One source served by one of several replicas that share a snapshot store (spec 004, "Single
process versus horizontal deployment").

:class:`ReplicaUnit` is a :class:`~schemaseek.engine.units.ServingUnit`: the service runs one
per source when Redis is configured. Per source, only the holder of the build lease fetches,
embeds and saves; it registers its fencing token with the store first (a stale holder's late
save is refused there), and announces the generation it saved. The others load announced
generations from the store and serve them without embedding.

Start: the announced generation when there is one; else the lease, and build (from the newest
valid generation, or cold); else — another replica builds — the newest valid generation in the
store, or wait for the announcement. A refresh (the poller's tick, or ``RefreshEngine``) first
loads what is announced, then builds under the lease when it is free.

Degraded, never rebuilt around: an announced generation that cannot be read (the previous one
keeps serving); Redis unreachable (serving goes on from the store, coordinated rebuilds are
suspended until it answers again). Redis unreachable and no valid generation: start waits
``startup_wait_s``, then fails with a message that says so.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from schemaseek.cluster.coordinator import Coordinator, Lease, Message
from schemaseek.cluster.lease import LeaseKeeper
from schemaseek.engine.gate import Party
from schemaseek.engine.report import EngineCancelled, EngineReport, EngineState
from schemaseek.engine.units import EngineFactory, EngineUnit, ServingUnit
from schemaseek.errors import ConfigError, CoordinationError, SnapshotError
from schemaseek.glossary import Glossary
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema

__all__ = ["ReplicaUnit"]

logger = logging.getLogger(__name__)

_PROGRESS_EVERY_S = 0.25


class ReplicaUnit(EngineUnit):
    """See the module docstring. ``retry_s``: how often a waiting start tries again."""

    def __init__(
        self,
        name: str,
        fetch: Callable[[], SourceSchema],
        factory: EngineFactory,
        glossary: Glossary | None,
        coordinator: Coordinator,
        *,
        startup_wait_s: float = 120.0,
        retry_s: float = 1.0,
    ) -> None:
        super().__init__(name, fetch, factory, glossary)
        engine = self.engine
        if engine.snapshots is None or engine.fingerprint is None:
            raise ConfigError(
                "replicas coordinated through Redis need an embedding model and a shared "
                "snapshot store (SCHEMASEEK_SNAPSHOT_DIR or S3_SNAPSHOT_BUCKET)"
            )
        self.manager: SnapshotManager = engine.snapshots
        self.fingerprint = engine.fingerprint.key
        self.coordinator = coordinator
        self.startup_wait_s = startup_wait_s
        self.retry_s = retry_s
        self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"replica-{name}")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._sync_queued = threading.Event()
        self._lease: Lease | None = None
        self._unreadable: str | None = None
        self._failure: str | None = None
        self._local: dict[str, str] = {}
        self._remote: dict[str, str] = {}
        self._published = 0.0
        engine.on_progress = self._progress
        self._unsubscribe = coordinator.listen(name, self._on_message)

    # -- status -----------------------------------------------------------------------------

    @property
    def state(self) -> str:
        if self._failure and not self.engine.index.built:
            return EngineState.FAILED.value
        state = self.engine.state.value
        if state == EngineState.READY.value and self.reason() is not None:
            return EngineState.DEGRADED.value
        return state

    def reason(self) -> str | None:
        """Why this replica is degraded by coordination (None: it is not)."""
        if not self.coordinator.healthy:
            return (
                f"{self.coordinator.description} is unreachable: serving the current "
                "generation, coordinated rebuilds suspended"
            )
        return self._unreadable or self._failure

    def coordination(self) -> dict[str, str]:
        lease = self._lease
        out = {
            "replica": self.coordinator.replica_id,
            "redis": "up" if self.coordinator.healthy else "down",
            "role": "holder" if lease is not None else "follower",
        }
        out.update(self._local if lease is not None else self._remote)
        reason = self.reason()
        if reason:
            out["reason"] = reason
        return out

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> Future[EngineReport]:
        return self._worker.submit(self._start)

    def refresh(self, party: Party | None = None) -> Future[EngineReport]:
        return self._worker.submit(self._refresh, party)

    def rollback(self, generation: str) -> ServingUnit:
        """Copy ``generation`` as the newest, announce it under the lease, and return a new
        unit that starts from the announcement (every other replica loads it too)."""
        lease = self._acquire()
        if lease is None:
            raise ConfigError(f"another replica is building {self.name!r}; retry the rollback")
        try:
            self.manager.register_token(self.name, lease.token)
            manifest = self.manager.rollback(self.name, generation)
            if not self.coordinator.announce(
                self.name, self.fingerprint, manifest.generation, lease.token
            ):
                raise ConfigError("the rollback lost its lease before it was announced")
        finally:
            self._release(lease)
        unit = ReplicaUnit(
            self.name, self._fetch, self._factory, self.glossary, self.coordinator,
            startup_wait_s=self.startup_wait_s, retry_s=self.retry_s,
        )  # fmt: skip
        for listener in self._listeners:
            unit.add_breaker_listener(listener)
        return unit

    def destroy(self, timeout: float | None = None) -> bool:
        self._stop.set()
        self._wake.set()
        self._unsubscribe()
        self._worker.shutdown(wait=False, cancel_futures=True)
        return self.engine.destroy(timeout)

    # -- work (on the replica's worker) -----------------------------------------------------

    def _start(self) -> EngineReport:
        deadline = time.monotonic() + self.startup_wait_s
        while not self._stop.is_set():
            try:
                report = self._try_start()
            except CoordinationError as exc:
                report = self._serve_stored()
                if report is None and time.monotonic() >= deadline:
                    self._failure = (
                        f"cannot start source {self.name!r}: {exc}, and the snapshot store "
                        f"holds no valid generation of it (waited {self.startup_wait_s:g} s)"
                    )
                    logger.error("%s", self._failure)
                    raise CoordinationError(self._failure) from None
            if report is not None:
                return report
            self._wake.wait(self.retry_s)
            self._wake.clear()
        raise EngineCancelled(f"replica of {self.name!r} was destroyed while starting")

    def _try_start(self) -> EngineReport | None:
        active = self.coordinator.active(self.name, self.fingerprint)
        if active is not None:
            return self._start_from(active.generation)
        lease = self._acquire()
        if lease is None:
            return self._serve_stored()  # another replica builds: serve what the store has
        active = self.coordinator.active(self.name, self.fingerprint)
        if active is not None:  # announced while the lease was being asked for
            self._release(lease)
            return self._start_from(active.generation)
        return self._build(lease)

    def _start_from(self, generation: str) -> EngineReport | None:
        try:
            return self.engine.init(generation=generation, catch_up=False).result()
        except SnapshotError as exc:
            self._note_unreadable(generation, exc)
            return self._serve_stored()  # never a rebuild around it

    def _serve_stored(self) -> EngineReport | None:
        """Serve the newest valid generation without building; None when there is none."""
        try:
            return self.engine.init(catch_up=False).result()
        except SnapshotError:
            return None

    def _refresh(self, party: Party | None = None) -> EngineReport:
        """Rebuild under the lease (committing inside ``party``'s gate when given). A
        replica that cannot take part breaks the gate (nothing commits anywhere); a follower
        (another replica builds) passes through it with nothing to commit: the generation the
        holder announces brings the change."""
        report: EngineReport | None = None
        try:
            if not self.engine.index.built:
                report = self._skipped("not serving yet", error=True)
                return report
            self._sync()
            if self._unreadable:
                report = self._skipped(self._unreadable, error=True)
                return report
            lease = self._acquire()
            if lease is None:
                report = self._skipped("another replica holds the build lease")
                return report
            report = self._build(lease, party)
            return report
        except CoordinationError as exc:
            report = self._skipped(f"coordinated rebuild suspended: {exc}", error=True)
            return report
        finally:
            if party is not None and not party.entered:
                _settle(party, failed=report is None or report.error is not None)

    def _acquire(self) -> Lease | None:
        floor = self.manager.highest_token(self.name)
        return self.coordinator.try_acquire(self.name, min_token=floor)

    def _build(self, lease: Lease, party: Party | None = None) -> EngineReport:
        """Fetch, embed what changed and save under ``lease``; announce what was saved."""
        engine = self.engine
        self._lease = lease
        self._local = {"lease_holder": lease.holder, "token": str(lease.token)}
        keeper = LeaseKeeper(self.coordinator, lease).start()
        try:
            if engine.index.built:
                self._sync()  # what was announced before the lease was ours is the base
                if self._unreadable:
                    return self._skipped(self._unreadable, error=True)
            self._progress("building", 0, 0)
            self.manager.register_token(self.name, lease.token)
            engine.save_token = lease.token
            future = engine.refresh(party) if engine.index.built else engine.init()
            report = future.result()
            engine.save_token = None
            if report.save_error or lease.lost.is_set():
                logger.warning(
                    "build of %r under token %d not announced: %s", self.name, lease.token,
                    report.save_error or "the lease was lost",
                )  # fmt: skip
                self._sync()  # follow whoever took over
            elif engine.generation is not None:
                if self.coordinator.announce(
                    self.name, self.fingerprint, engine.generation, lease.token
                ):
                    self._progress("announced", report.embedded, report.documents)
                else:
                    self._sync()
            return report
        finally:
            engine.save_token = None
            keeper.stop()
            self._release(lease)
            self._lease = None

    def _release(self, lease: Lease) -> None:
        with contextlib.suppress(CoordinationError):
            self.coordinator.release(lease)

    def _sync(self) -> None:
        """Serve the announced generation when it differs from the one served."""
        self._sync_queued.clear()
        active = self.coordinator.active(self.name, self.fingerprint)
        if active is None or active.generation == self.engine.generation:
            if active is not None:
                self._unreadable = None
            return
        try:
            self.engine.load(active.generation).result()
        except SnapshotError as exc:
            self._note_unreadable(active.generation, exc)
            return
        self._unreadable = None
        logger.info("source %r serves announced generation %s", self.name, active.generation)

    def _sync_logged(self) -> None:
        try:
            self._sync()
        except CoordinationError as exc:
            logger.warning("could not follow the announcement of %r: %s", self.name, exc)

    def _note_unreadable(self, generation: str, exc: Exception) -> None:
        self._unreadable = (
            f"announced generation {generation} cannot be read ({exc}); serving "
            f"{self.engine.generation or 'nothing'} and not rebuilding around it"
        )
        logger.warning("source %r: %s", self.name, self._unreadable)

    def _skipped(self, why: str, *, error: bool = False) -> EngineReport:
        index = self.engine.index
        documents = index.document_count if index.built else 0
        return EngineReport(
            self.name, documents, 0, documents, generation=self.engine.generation,
            degraded=self.state != EngineState.READY.value, error=why if error else None,
            extra={"skipped": why},
        )  # fmt: skip

    # -- messages and progress --------------------------------------------------------------

    def _on_message(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "progress" and message.get("holder") != self.coordinator.replica_id:
            self._remote = {
                "lease_holder": str(message.get("holder", "")),
                **{k: str(message.get(k, "")) for k in ("token", "phase", "done", "total")},
            }
            return
        if kind == "announce" and message.get("fingerprint") != self.fingerprint:
            return
        if kind == "announce" and message.get("generation") == self.engine.generation:
            self._unreadable = None  # what is served is the active one again
            return
        if kind in ("announce", "reconnected"):
            self._wake.set()
            if self.engine.index.built and not self._sync_queued.is_set():
                self._sync_queued.set()
                with contextlib.suppress(RuntimeError):  # shut down
                    self._worker.submit(self._sync_logged)

    def _progress(self, phase: str, done: int, total: int) -> None:
        lease = self._lease
        if lease is None:
            return
        self._local.update(phase=phase, done=str(done), total=str(total))
        now = time.monotonic()
        if phase == "embedding" and done < total and now - self._published < _PROGRESS_EVERY_S:
            return
        self._published = now
        with contextlib.suppress(CoordinationError):
            self.coordinator.report_progress(self.name, lease.token, phase, done, total)


def _settle(party: Party, *, failed: bool) -> None:
    """Take ``party``'s place at its gate without committing anything: break the gate when
    this replica failed, else pass through it so that the others commit."""
    if failed:
        party.abort()
        return
    with party:
        pass
