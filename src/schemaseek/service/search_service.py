"""The ``schemaseek.v1.SearchService`` handlers: Search, GetSchema, ReportUsage.

A search runs under one deadline (:func:`~schemaseek.service.errors.request_deadline`: the
client's, capped by ``max_deadline_ms``) and reads the units under
:meth:`Backend.reading <schemaseek.service.backend.Backend.reading>`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from connectrpc.request import RequestContext

from schemaseek.documents import DocKind
from schemaseek.federation import Page
from schemaseek.query.filters import SearchFilter
from schemaseek.query.pipeline import InvalidQueryError, validate_search
from schemaseek.query.shared import Deadline
from schemaseek.service import convert
from schemaseek.service.backend import Backend
from schemaseek.service.cursor import (
    Cursor,
    decode_cursor,
    encode_cursor,
    search_hash,
)
from schemaseek.service.errors import request_deadline, run_blocking, to_connect_error
from schemaseek.service.federation import search_page
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.service.gen.schemaseek.v1.search_connect import SearchService
from schemaseek.service.settings import ServiceConfig
from schemaseek.service.telemetry import Telemetry
from schemaseek.service.trace import Tracer

__all__ = ["SearchHandler", "run_search"]

T = TypeVar("T")
DEFAULT_LIMIT = 10
_KINDS = {k.value for k in DocKind}


class SearchHandler(SearchService):
    """Implements ``SearchService`` over a :class:`Backend`; blocking work runs on a pool."""

    def __init__(
        self,
        backend: Backend,
        executor: ThreadPoolExecutor,
        secret: bytes,
        config: ServiceConfig | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.backend = backend
        self.executor = executor
        self.secret = secret
        self.config = config or ServiceConfig()
        self.telemetry = telemetry
        self._introspection: dict[str, str] = {}

    async def _run(self, ctx: RequestContext[Any, Any], fn: Callable[..., T], *args: Any) -> T:
        deadline = request_deadline(ctx, self.config.max_deadline_ms)
        return await run_blocking(self.executor, fn, *args, deadline=deadline)

    async def search(
        self, request: pb.SearchRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.SearchResponse:
        deadline = request_deadline(ctx, self.config.max_deadline_ms)
        telemetry = self.telemetry
        parent = telemetry.current() if telemetry is not None else None
        response, tracer = await run_blocking(
            self.executor, run_search, self.backend, self.secret, request,
            Tracer() if telemetry is not None else None, deadline, deadline=deadline,
        )  # fmt: skip
        if telemetry is not None and tracer is not None:
            telemetry.record_stages(tracer, parent)
        return response

    async def get_schema(
        self, request: pb.GetSchemaRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.GetSchemaResponse:
        return await self._run(ctx, self._get_schema, request)

    def _get_schema(self, request: pb.GetSchemaRequest) -> pb.GetSchemaResponse:
        if not request.source:
            raise InvalidQueryError("source is required")
        unit = self.backend.unit(request.source)
        schema = unit.schema()
        if schema is None:
            raise InvalidQueryError(f"source {request.source!r} has no schema to send yet")
        out = pb.GetSchemaResponse(source=schema.name, kind=schema.kind, hash=schema.schema_hash)
        if request.known_hash == schema.schema_hash:
            return out
        out.changed = True
        if schema.kind == "graphql":
            sdl = str(schema.raw.get("sdl") or "")
            out.sdl = sdl
            out.introspection_json = self._introspect(schema.schema_hash, sdl)
        else:
            out.tables = convert.sql_tables(schema)
        return out

    def _introspect(self, key: str, sdl: str) -> str:
        if key not in self._introspection and sdl:
            from graphql import build_schema, introspection_from_schema

            result = introspection_from_schema(build_schema(sdl))
            self._introspection = {key: json.dumps(result, separators=(",", ":"))}
        return self._introspection.get(key, "")

    async def report_usage(
        self, request: pb.ReportUsageRequest, ctx: RequestContext[Any, Any], /
    ) -> pb.ReportUsageResponse:
        if not request.query_id.strip() or len(request.query_id) > 128:
            raise to_connect_error(InvalidQueryError("query_id must be 1-128 characters"))
        ids = [i for i in request.selected_ids if i]
        most = self.config.max_ids
        if not ids or len(ids) > most:
            raise to_connect_error(
                InvalidQueryError(f"selected_ids must hold 1-{most} ids (max_ids)")
            )
        recorded, unknown, learned = await self._run(
            ctx, self.backend.record_usage, request.query_id, ids
        )
        return pb.ReportUsageResponse(recorded=recorded, unknown_ids=unknown, learned=learned)


def run_search(
    backend: Backend,
    secret: bytes,
    request: pb.SearchRequest,
    tracer: Tracer | None,
    deadline: Deadline | None = None,
) -> tuple[pb.SearchResponse, Tracer | None]:
    """Validate, page and answer one search request (also used by ``TraceQuery``) within
    ``deadline``."""
    limit = request.limit or DEFAULT_LIMIT
    mode = request.mode or "hybrid"
    query = validate_search(request.query, limit=limit, mode=mode, settings=backend.settings)
    unknown = [k for k in request.kinds if k not in _KINDS]
    if unknown:
        raise InvalidQueryError(f"unknown kinds {unknown}; valid: {', '.join(sorted(_KINDS))}")
    include = list(request.filter.include) if request.filter else []
    exclude = list(request.filter.exclude) if request.filter else []
    digest = search_hash(query, request.sources, request.kinds, include, exclude, mode)
    cursor = decode_cursor(secret, request.cursor, digest) if request.cursor else None
    served = cursor.served if cursor else 0
    search_filter = SearchFilter(
        include=tuple(include),
        exclude=tuple(exclude),
        kinds=tuple(DocKind(k) for k in request.kinds),
        sources=tuple(request.sources),
    )
    page = Page(
        max_depth=backend.settings.max_search_limit,
        served=served,
        after=(cursor.score, cursor.id) if cursor else None,
    )
    with backend.reading(deadline.remaining() if deadline is not None else None) as units:
        found = search_page(
            units, query, limit=limit, mode=mode, search_filter=search_filter, page=page,
            settings=backend.settings, recent=backend.recent, tracer=tracer,
            deadline=deadline, executor=backend.embed_pool,
        )  # fmt: skip
    next_cursor = ""
    if found.has_more and found.hits:
        last = found.hits[-1]
        cursor_out = Cursor(last.hit.score, last.key, served + len(found.hits), digest)
        next_cursor = encode_cursor(secret, cursor_out)
    response = convert.search_response(
        found, explain=request.explain, query_id=found.query_id, next_cursor=next_cursor
    )
    return response, tracer
