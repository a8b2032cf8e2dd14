"""One engine per source: ``init`` / ``refresh`` / ``search`` / ``destroy`` (spec 001 "Lifecycle").

Start is two-phase. :meth:`SourceEngine.init` serves at once — from the newest valid snapshot
generation when there is one (vectors included: state ``ready``), else from the live source's
keyword and glossary signals (state ``degraded``) — and queues phase two on the engine's single
worker thread: embed what has no vector yet (batch by batch, cancellable), then save a
generation. Everything that changes the index runs on that one worker, so refreshes never
overlap; a refresh requested while one is queued joins it. A refresh embeds before it touches
anything: when the provider fails (or its circuit is open) the serving index stays as it was.

Documents are re-embedded only when their content hash changed; a warm start with nothing
changed makes no embedding call at all. The engine owns no timer: see
:class:`~schemaseek.engine.polling.Poller`.

**Rollback holds**: see :mod:`schemaseek.engine.hold`. **Committing with others.**
``refresh(party=...)`` prepares the change (fetch, diff, embed) and
commits it inside a :class:`~schemaseek.engine.gate.CommitGate` shared with other engines.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from schemaseek.config import SearchSettings
from schemaseek.documents import Document, SearchResponse
from schemaseek.embedding.base import EmbeddingProvider, Vectors
from schemaseek.embedding.breaker import BreakerConfig, BreakerProvider, BreakerState
from schemaseek.engine import persistence
from schemaseek.engine.embedding import embed_batches, fill_vector_index
from schemaseek.engine.gate import Party
from schemaseek.engine.hold import RollbackHold
from schemaseek.engine.report import (
    EngineCancelled,
    EngineReport,
    EngineState,
    engine_status,
    report_of,
)
from schemaseek.errors import ConfigError, SnapshotError
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.progress import StageProgress
from schemaseek.query.filters import SearchFilter
from schemaseek.query.rerank import Reranker
from schemaseek.query.state import Mode
from schemaseek.signals.vector import VectorIndex
from schemaseek.snapshots.fingerprint import fingerprint_of
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema

__all__ = ["EngineCancelled", "EngineReport", "EngineState", "SourceEngine"]

logger = logging.getLogger(__name__)


class SourceEngine:
    """Serves one source; see the module docstring.

    Args:
        name: the source's name (its snapshots live under it).
        fetch: returns the live :class:`SourceSchema` (called at start and on each refresh).
        provider: the embedding provider, or None for keyword + glossary only.
        snapshots: where generations are loaded from and saved to (None: no persistence).
        breaker: circuit thresholds for ``embed``; ``query_breaker`` for ``embed_query``
            (default the same). ``breaker=None`` uses the provider unguarded.
        embed_batch: documents per provider call; cancellation is checked between calls.
        clock: monotonic clock for the breakers (tests).
        progress: told ``(stage, done, total)`` while embedding (``embedding <name>``, per
            batch) and loading or saving a snapshot (``snapshot load <name>``, ``snapshot
            save <name>``); see :mod:`schemaseek.progress`.
    """

    def __init__(
        self,
        name: str,
        fetch: Callable[[], SourceSchema],
        *,
        provider: EmbeddingProvider | None,
        glossary: Glossary | None = None,
        settings: SearchSettings | None = None,
        snapshots: SnapshotManager | None = None,
        breaker: BreakerConfig | None = None,
        query_breaker: BreakerConfig | None = None,
        reranker: Reranker | None = None,
        embed_batch: int = 256,
        clock: Callable[[], float] = time.monotonic,
        progress: StageProgress | None = None,
    ) -> None:
        self.name = name
        self.progress = progress
        self._fetch = fetch
        self.breakers: BreakerProvider | None = None
        if provider is not None and breaker is not None:
            self.breakers = BreakerProvider(
                provider, breaker, query_config=query_breaker, clock=clock
            )
            provider = self.breakers
        self.provider = provider
        self.fingerprint = fingerprint_of(provider) if provider is not None else None
        self.snapshots = snapshots if provider is not None else None
        self.index = SchemaIndex(
            [], glossary=glossary, provider=provider, settings=settings, reranker=reranker
        )
        self.embed_batch = max(1, embed_batch)
        self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"engine-{name}")
        self._tasks: list[Future[Any]] = []
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._failed = False
        self._pending: Future[EngineReport] | None = None
        self._phase_two: Future[EngineReport] | None = None
        self.generation: str | None = None
        self.last_report: EngineReport | None = None
        self.save_token: int | None = None
        """The fencing token saves carry (set by :mod:`schemaseek.cluster` while it holds the
        source's build lease); None: saves are not fenced."""
        self.on_progress: Callable[[str, int, int], None] | None = None
        """Called on the worker with ``(stage, done, total)``: embedding, snapshot load and
        save (see :meth:`report_progress`)."""
        self._hold = RollbackHold()

    # -- state ----------------------------------------------------------------------------

    @property
    def state(self) -> EngineState:
        """``ready`` only with vectors and a closed (or probing) query circuit."""
        if self._cancel.is_set():
            return EngineState.DESTROYED
        if self._failed:
            return EngineState.FAILED
        if not self.index.built:
            return EngineState.INITIALIZING
        if self.provider is None or self.index.degraded:
            return EngineState.DEGRADED
        if self.breakers is not None and self.breakers.query_breaker.state is BreakerState.OPEN:
            return EngineState.DEGRADED
        return EngineState.READY

    def status(self) -> dict[str, Any]:
        """State, counts, generation, circuits and the last report, for health endpoints."""
        return engine_status(self)

    # -- lifecycle ------------------------------------------------------------------------

    def init(
        self,
        *,
        wait: bool = False,
        generation: str | None = None,
        catch_up: bool = True,
        keep_hold: bool = True,
    ) -> Future[EngineReport]:
        """Start serving (phase one, in this call) and queue phase two; with ``wait``, block
        until phase two is done. Raises when there is neither a snapshot nor a live source.

        ``generation`` serves exactly that snapshot generation (:class:`SnapshotError` when it
        cannot be read); ``catch_up=False`` serves a snapshot only, without fetching the
        source or embedding (a replica that follows announced generations), and raises
        :class:`SnapshotError` when there is none. ``keep_hold=False`` ends the hold of a
        rolled-back generation at once (its catch-up applies the live source)."""
        if self.index.built or self._cancel.is_set():
            raise ConfigError(f"engine {self.name!r} was already started")
        started = time.perf_counter()
        future: Future[EngineReport]
        if persistence.load_snapshot(self, generation):
            if not keep_hold:
                self.release_hold()
            if catch_up:
                future = self._submit(self._fetch_and_apply, started)
            else:
                future = Future()
                future.set_result(self._loaded(started))
        elif not catch_up:
            raise SnapshotError(f"no valid snapshot generation of source {self.name!r}")
        else:
            try:
                schema = self._fetch()
                self.index.serve_lexical(schema)
                served = self.index.document_count
                self.report_progress("keyword", served, served)
            except Exception:
                self._failed = True
                raise
            future = self._submit(self._apply_logged, schema, started)
        self._phase_two = future
        if wait:
            future.result()
        return future

    def load(self, generation: str) -> Future[EngineReport]:
        """Serve snapshot ``generation`` (one another replica built), on the worker; the
        future raises :class:`SnapshotError` when it cannot be read (nothing changes then)."""
        return self._submit(self._load, generation)

    def refresh(self, party: Party | None = None) -> Future[EngineReport]:
        """Fetch the source and apply the diff, on the worker; a refresh requested while one
        is queued returns that one's future (one that commits with a ``party`` never joins:
        it is queued on its own)."""
        with self._lock:
            if self._cancel.is_set():
                raise EngineCancelled(f"engine {self.name!r} is destroyed")
            if self._pending is not None and party is None:
                return self._pending
            future: Future[EngineReport] = Future()
            if party is None:
                self._pending = future
        self._submit(self._run_refresh, future, party)
        return future

    @property
    def held(self) -> bool:
        """Whether a rollback holds the engine on its generation (:mod:`.hold`)."""
        return self._hold.active

    @property
    def live_schema_hash(self) -> str:
        """The live source's schema hash as last fetched ("" before any)."""
        if self._hold.live_hash:
            return self._hold.live_hash
        sources = self.index.sources
        return sources[0].schema_hash if sources else ""

    def hold_rollback(self, live_hash: str = "") -> None:
        """Stay on the served generation while the live schema hash is ``live_hash`` (the
        first fetch sets it when empty)."""
        self._hold.hold(live_hash)

    def release_hold(self) -> bool:
        """End a rollback hold (the next refresh applies the live schema); True if held."""
        return self._hold.release()

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        mode: Mode = "hybrid",
        search_filter: SearchFilter | None = None,
    ) -> SearchResponse:
        """Search the current index (see :meth:`SchemaIndex.search`)."""
        if not self.index.built:
            raise ConfigError(f"engine {self.name!r} is not started; call init() first")
        return self.index.search(query, limit=limit, mode=mode, search_filter=search_filter)

    def destroy(self, timeout: float | None = None) -> bool:
        """Cancel queued and running work and wait for it; True when it all ended in time."""
        self._cancel.set()
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
        self._worker.shutdown(wait=False, cancel_futures=True)
        # wait() never counts a future cancelled by shutdown() as done: leave those out
        _, running = wait([t for t in self._tasks if not t.cancelled()], timeout=timeout)
        return not running

    # -- work (on the worker thread) ------------------------------------------------------

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future = self._worker.submit(fn, *args)
        self._tasks = [t for t in self._tasks if not t.done()] + [future]
        return future

    def _run_refresh(self, future: Future[EngineReport], party: Party | None) -> None:
        with self._lock:
            if self._pending is future:
                self._pending = None  # later requests queue a new refresh
        if not future.set_running_or_notify_cancel():
            if party is not None:
                party.abort()
            return
        started = time.perf_counter()
        try:
            future.set_result(self._fetch_and_apply(started, party))
        except BaseException as exc:
            future.set_exception(exc)
        finally:
            if party is not None:
                party.abort()  # a no-op once it committed

    def _load(self, generation: str) -> EngineReport:
        started = time.perf_counter()
        self._check_cancel()
        persistence.load_snapshot(self, generation)
        return self._loaded(started)

    def _loaded(self, started: float) -> EngineReport:
        return self._report(time.perf_counter() - started, self.index.document_count, 0)

    def _fetch_and_apply(self, started: float, party: Party | None = None) -> EngineReport:
        try:
            schema = self._fetch()
        except Exception as exc:
            return self._failure(started, f"fetching the source failed: {exc}")
        was_held = self._hold.active
        if self._hold.keeps(schema.schema_hash):
            return self._held(started, party)
        if was_held:
            logger.info("source %r changed since its rollback: applying it", self.name)
        return self._apply_logged(schema, started, party)

    def _held(self, started: float, party: Party | None) -> EngineReport:
        """A refresh under a rollback hold: documents stay; a new glossary's matcher still
        serves (inside the gate, with the other engines)."""
        if party is not None:
            with party:
                self.index.reload_glossary(self.index.glossary)
        count = self.index.document_count
        return self._report(time.perf_counter() - started, count, 0, held=True)

    def _apply_logged(
        self, schema: SourceSchema, started: float, party: Party | None = None
    ) -> EngineReport:
        try:
            return self._apply(schema, started, party)
        except EngineCancelled:
            raise
        except Exception as exc:
            return self._failure(started, str(exc))

    def _failure(self, started: float, message: str) -> EngineReport:
        logger.warning(
            "refresh of source %r failed: %s; serving the previous index", self.name, message
        )
        took_s = time.perf_counter() - started
        report = report_of(self, took_s, self.index.document_count, 0, reused=0, error=message)
        self.last_report = report
        return report

    def _apply(
        self, schema: SourceSchema, started: float, party: Party | None = None
    ) -> EngineReport:
        """Diff ``schema`` against the index, embed what changed, install (inside the gate of
        ``party`` when given), save."""
        index = self.index
        diff = index.diff(schema)
        has_vectors = self.provider is None or not index.degraded
        if diff.empty and has_vectors:
            if party is not None:  # a glossary change that left every document as it was
                with party:
                    index.reload_glossary(index.glossary)
            return self._report(time.perf_counter() - started, len(diff.documents), 0)
        replacement = None
        vectors = None
        if self.provider is not None and not index.degraded:
            vectors = self._embed([diff.documents[d] for d in diff.changed])
            embedded = len(diff.changed)
        elif self.provider is not None:
            replacement = self._vector_index(list(diff.documents), list(diff.documents.values()))
            embedded = len(diff.documents)
        else:
            embedded = 0
        self._check_cancel()
        with party or contextlib.nullcontext():
            index.apply_diff(diff, vectors=vectors, replacement=replacement)
        served_s = time.perf_counter() - started  # the new index serves from here on
        save_error = persistence.save_snapshot(self)
        saved_s = time.perf_counter() - started - served_s
        changed = len(diff.changed)
        return self._report(
            served_s, len(diff.documents), embedded, diff.added, changed - diff.added,
            len(diff.removed), extra={"save_s": saved_s}, save_error=save_error,
        )  # fmt: skip

    def _report(
        self, took_s: float, documents: int, embedded: int, *counts: int, **more: Any
    ) -> EngineReport:
        """Record and return what this work did (``counts``: added, changed, removed)."""
        self.last_report = report_of(self, took_s, documents, embedded, *counts, **more)
        return self.last_report

    def _check_cancel(self) -> None:
        if self._cancel.is_set():
            raise EngineCancelled(f"engine {self.name!r} was destroyed")

    def _embed(self, docs: Sequence[Document]) -> Vectors:
        assert self.provider is not None
        return embed_batches(
            self.provider, docs, self.embed_batch, check_cancel=self._check_cancel,
            progress=lambda done, total: self.report_progress("embedding", done, total),
        )  # fmt: skip

    def report_progress(self, stage: str, done: int, total: int) -> None:
        """Tell ``progress`` (the display, if any) and ``on_progress`` (a coordinator's hook,
        if any) how far ``stage`` of this engine is."""
        if self.progress is not None:
            self.progress(f"{stage} {self.name}", done, total)
        if self.on_progress is not None:
            self.on_progress(stage, done, total)

    def _vector_index(self, ids: list[str], docs: list[Document]) -> VectorIndex:
        """A complete vector index for ``docs`` (graph built now when large enough)."""
        vectors = self._embed(docs)
        return fill_vector_index(self.index.new_vector_index(), ids, vectors, self._check_cancel)
