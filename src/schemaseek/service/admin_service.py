"""The ``schemaseek.v1.AdminService`` handlers (every one needs the ``admin`` role).

``TraceQuery`` runs under the search deadline; refreshes, glossary updates and rollbacks wait
up to ``admin_timeout_s``. ``RefreshEngine`` is an explicit refresh: it ends a rollback hold.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from connectrpc.request import RequestContext

from schemaseek.engine.units import ServingUnit
from schemaseek.errors import GlossaryError
from schemaseek.glossary import Glossary, parse_glossary
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.service import convert
from schemaseek.service.backend import Backend
from schemaseek.service.errors import request_deadline, run_blocking, to_connect_error
from schemaseek.service.gen.schemaseek.v1 import admin_pb as pb
from schemaseek.service.gen.schemaseek.v1.admin_connect import AdminService
from schemaseek.service.search_service import run_search
from schemaseek.service.settings import ServiceConfig, redacted_config
from schemaseek.service.trace import Tracer

__all__ = ["AdminHandler"]

T = TypeVar("T")
MAX_GLOSSARY_BYTES = 4 << 20
DEFAULT_GRAPH_NODES = 5000


class AdminHandler(AdminService):
    """Implements ``AdminService`` over a :class:`Backend`."""

    def __init__(
        self,
        backend: Backend,
        executor: ThreadPoolExecutor,
        secret: bytes,
        config: ServiceConfig,
    ) -> None:
        self.backend = backend
        self.executor = executor
        self.secret = secret
        self.config = config
        self.refresh_timeout_s = config.admin_timeout_s

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await run_blocking(self.executor, fn, *args)

    async def get_engines(
        self, request: pb.GetEnginesRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetEnginesResponse:
        return await self._run(self.engines)

    def engines(self) -> pb.GetEnginesResponse:
        """``GetEngines``' answer (also shown by the workbench)."""
        backend = self.backend
        engines = []
        for unit in backend.units:
            index = unit.index
            report = unit.last_report
            interval, next_at = backend.poll_schedule(unit.name)
            engines.append(
                pb.EngineStatus(
                    source=unit.name,
                    state=unit.state,
                    documents=index.document_count if index is not None else 0,
                    vectors=index.vector_count if index is not None else 0,
                    generation=unit.generation or "",
                    circuits=unit.circuits(),
                    last_refresh=convert.refresh_report(report) if report else None,
                    poll_interval_s=interval,
                    next_poll_unix=next_at,
                    coordination=unit.coordination(),
                )
            )
        return pb.GetEnginesResponse(
            engines=engines,
            status=backend.status(),
            feedback_events=len(backend.feedback.events()),
        )

    async def refresh_engine(
        self, request: pb.RefreshEngineRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.RefreshEngineResponse:
        return await self._run(self._refresh, request.source)

    def _refresh(self, source: str) -> pb.RefreshEngineResponse:
        futures = self.backend.refresh(source or None, release=True)
        reports = [f.result(self.refresh_timeout_s) for f in futures]
        return pb.RefreshEngineResponse(reports=[convert.refresh_report(r) for r in reports])

    async def trace_query(
        self, request: pb.TraceQueryRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.TraceQueryResponse:
        if request.search is None:
            raise to_connect_error(InvalidQueryError("search is required"))
        deadline = request_deadline(ctx, self.config.max_deadline_ms)
        response, tracer = await run_blocking(
            self.executor, run_search, self.backend, self.secret, request.search, Tracer(),
            deadline, deadline=deadline,
        )  # fmt: skip
        assert tracer is not None
        spans = [
            pb.Span(
                name=s.name,
                start_ms=s.start_ms,
                duration_ms=s.duration_ms,
                source=s.source,
                attributes=s.attributes,
            )
            for s in sorted(tracer.spans, key=lambda s: s.start_ms)
        ]
        return pb.TraceQueryResponse(response=response, spans=spans, total_ms=tracer.total_ms())

    async def get_glossary(
        self, request: pb.GetGlossaryRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetGlossaryResponse:
        glossary = self.backend.glossary
        if request.source:
            glossary = self.backend.glossary_of(self.backend.unit(request.source))
        path = self.backend.glossary_path
        return pb.GetGlossaryResponse(
            glossary_json=json.dumps(glossary.model_dump(mode="json"), ensure_ascii=False),
            entries=len(glossary.entries),
            path=str(path) if path else "",
        )

    async def update_glossary(
        self, request: pb.UpdateGlossaryRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.UpdateGlossaryResponse:
        return await self.apply_glossary(request)

    async def apply_glossary(self, request: pb.UpdateGlossaryRequest) -> pb.UpdateGlossaryResponse:
        """``UpdateGlossary`` without an RPC context (the workbench saves through it)."""
        if len(request.glossary_json) > MAX_GLOSSARY_BYTES:
            raise to_connect_error(InvalidQueryError("the glossary is larger than 4 MiB"))
        try:
            glossary = parse_glossary(json.loads(request.glossary_json), "request")
            glossary = glossary.resolved(self.config.placeholders())
        except json.JSONDecodeError as exc:
            raise to_connect_error(GlossaryError(f"glossary_json is not JSON: {exc}")) from exc
        except GlossaryError as exc:
            raise to_connect_error(exc) from exc
        missing = self._missing(glossary)
        out = pb.UpdateGlossaryResponse(entries=len(glossary.entries), missing=missing)
        path = self.backend.glossary_path
        out.path = str(path) if path else ""
        if request.dry_run:
            return out
        reports = await self._run(self.backend.update_glossary, glossary, self.refresh_timeout_s)
        out.applied = not any(r.error for r in reports)
        out.reports = [convert.refresh_report(r) for r in reports]
        return out

    def _missing(self, glossary: Glossary) -> list[str]:
        known: set[str] = set()
        for unit in self.backend.units:
            index = unit.index
            if index is not None:
                documents = index.documents
                known |= set(documents) | {doc.name for doc in documents.values()}
        lowered = {k.lower() for k in known}
        refs = [
            r
            for e in glossary.entries
            for r in (*e.targets, *e.related, *([e.prefer] if e.prefer else []))
        ]
        return sorted({r for r in refs if r not in known and r.lower() not in lowered})

    async def list_snapshots(
        self, request: pb.ListSnapshotsRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.ListSnapshotsResponse:
        return await self._run(self.snapshots, request.source)

    def snapshots(self, source: str = "") -> pb.ListSnapshotsResponse:
        """``ListSnapshots``' answer (also shown by the workbench)."""
        units = [self.backend.unit(source)] if source else list(self.backend.units)
        out = []
        for unit in units:
            manager = unit.snapshots
            if manager is None:
                continue
            for info in manager.generations(unit.name):
                m = info.manifest
                problem = manager.problem(info)
                out.append(
                    pb.Snapshot(
                        source=unit.name,
                        generation=info.generation,
                        fingerprint=info.fingerprint,
                        created_unix=info.created_unix,
                        documents=m.documents if m else 0,
                        vectors=m.vectors if m else 0,
                        bytes=m.total_bytes if m else 0,
                        rolled_back_from=(m.rolled_back_from or "") if m else "",
                        status="valid" if problem is None else f"invalid: {problem}",
                        serving=info.generation == unit.generation,
                    )
                )
        return pb.ListSnapshotsResponse(snapshots=out)

    async def rollback_snapshot(
        self, request: pb.RollbackSnapshotRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.RollbackSnapshotResponse:
        if not request.source or not request.generation:
            raise to_connect_error(InvalidQueryError("source and generation are required"))
        unit: ServingUnit = await self._run(
            self.backend.rollback, request.source, request.generation, self.refresh_timeout_s
        )
        return pb.RollbackSnapshotResponse(
            source=unit.name,
            generation=unit.generation or "",
            rolled_back_from=request.generation,
            state=unit.state,
        )

    async def get_config(
        self, request: pb.GetConfigRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetConfigResponse:
        values, redacted = redacted_config(self.config)
        return pb.GetConfigResponse(values=values, redacted=redacted)

    async def get_graph(
        self, request: pb.GetGraphRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetGraphResponse:
        return await self._run(self._graph, request.source, request.max_nodes)

    def _graph(self, source: str, max_nodes: int) -> pb.GetGraphResponse:
        if max_nodes < 0:
            raise InvalidQueryError("max_nodes must be >= 0")
        limit = max_nodes or DEFAULT_GRAPH_NODES
        units = [self.backend.unit(source)] if source else list(self.backend.units)
        nodes: list[pb.GraphNode] = []
        edges: list[pb.GraphEdge] = []
        truncated = False
        for unit in units:
            index = unit.index
            if index is None:
                continue
            documents = index.documents
            kept = sorted(documents)[: max(0, limit - len(nodes))]
            truncated |= len(kept) < len(documents)
            keep = set(kept)
            nodes += [
                pb.GraphNode(id=d, kind=documents[d].kind.value, source=documents[d].source)
                for d in kept
            ]
            for schema in index.sources:
                edges += [
                    pb.GraphEdge(source=e.source, target=e.target, relation=e.relation.value)
                    for e in schema.edges
                    if e.source in keep and e.target in keep
                ]
        return pb.GetGraphResponse(nodes=nodes, edges=edges, truncated=truncated)

    async def stream_events(
        self, request: pb.StreamEventsRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[pb.Event]:
        async for event in self.backend.events.subscribe(request.types, replay=request.replay):
            yield pb.Event(
                seq=event.seq,
                type=event.type,
                source=event.source,
                unix_time=event.unix_time or time.time(),
                message=event.message,
                attributes=event.attributes,
            )
