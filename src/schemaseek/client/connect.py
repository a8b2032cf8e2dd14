"""Clients of the schemaseek network service (Connect protocol; sync and async).

    from schemaseek.client import SchemaSeekClient

    with SchemaSeekClient("http://127.0.0.1:8081", token="...") as client:
        answer = client.search("royalty payments for Sony", limit=5)
        print([r.id for r in answer.results])

Calls time out after 500 ms (``GetSchema``: 10 s). Failures raise a :class:`ServiceError`
subclass named after the status code. With ``fallback=CatalogCache(dir, sources)``, a search
that cannot reach the service (unavailable, timed out) is answered keyword-only from the
locally cached catalog (``degraded`` is set); :meth:`SchemaSeekClient.sync_catalog` keeps that
cache current. The address defaults to ``$SCHEMASEEK_URL``, else ``http://127.0.0.1:8081``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from connectrpc.code import Code
from connectrpc.codec import proto_json_codec
from connectrpc.errors import ConnectError

from schemaseek.client.catalog_cache import CatalogCache
from schemaseek.errors import SchemaSeekError
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.service.gen.schemaseek.v1.admin_connect import (
    AdminServiceClient,
    AdminServiceClientSync,
)
from schemaseek.service.gen.schemaseek.v1.search_connect import (
    SearchServiceClient,
    SearchServiceClientSync,
)

__all__ = [
    "AsyncSchemaSeekClient",
    "DeadlineExceeded",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "SchemaSeekClient",
    "ServiceError",
    "Unauthenticated",
    "Unavailable",
    "search_request",
]

DEFAULT_URL = "http://127.0.0.1:8081"
DEFAULT_TIMEOUT_MS = 500
SCHEMA_TIMEOUT_MS = 10_000


class ServiceError(SchemaSeekError):
    """A call failed; ``code`` is the Connect/gRPC status code name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class InvalidArgument(ServiceError):
    """The request was rejected (question too long, bad limit, forged cursor ...)."""


class Unauthenticated(ServiceError):
    """No token, or an unknown one."""


class PermissionDenied(ServiceError):
    """The token's role may not call this method."""


class RateLimited(ServiceError):
    """Too many requests from this client: retry later."""


class NotFound(ServiceError):
    """An unknown source or snapshot generation."""


class Unavailable(ServiceError):
    """The service cannot be reached or cannot serve yet."""


class DeadlineExceeded(ServiceError):
    """No answer within the timeout."""


_ERRORS: dict[Code, type[ServiceError]] = {
    Code.INVALID_ARGUMENT: InvalidArgument,
    Code.UNAUTHENTICATED: Unauthenticated,
    Code.PERMISSION_DENIED: PermissionDenied,
    Code.RESOURCE_EXHAUSTED: RateLimited,
    Code.NOT_FOUND: NotFound,
    Code.UNAVAILABLE: Unavailable,
    Code.DEADLINE_EXCEEDED: DeadlineExceeded,
}
_FALLBACK_CODES = (Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED)


def _typed(exc: ConnectError) -> ServiceError:
    return _ERRORS.get(exc.code, ServiceError)(exc.code.value, exc.message)


def search_request(
    query: str,
    *,
    sources: Sequence[str] = (),
    kinds: Sequence[str] = (),
    limit: int = 10,
    cursor: str = "",
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    mode: str = "hybrid",
    explain: bool = False,
) -> pb.SearchRequest:
    """The request message for :meth:`SchemaSeekClient.search`'s arguments."""
    return pb.SearchRequest(
        query=query,
        sources=list(sources),
        kinds=list(kinds),
        limit=limit,
        cursor=cursor,
        filter=pb.SearchFilter(include=list(include), exclude=list(exclude)),
        mode=mode,
        explain=explain,
    )


class _Base:
    def __init__(
        self,
        url: str | None,
        token: str | None,
        timeout_ms: int,
        schema_timeout_ms: int,
        fallback: CatalogCache | None,
        json: bool,
    ) -> None:
        self.url = (url or os.environ.get("SCHEMASEEK_URL") or DEFAULT_URL).rstrip("/")
        self.headers = {"authorization": f"Bearer {token}"} if token else {}
        self.timeout_ms = timeout_ms
        self.schema_timeout_ms = schema_timeout_ms
        self.fallback = fallback
        self.codec_options: dict[str, Any] = {"codec": proto_json_codec()} if json else {}


class SchemaSeekClient(_Base):
    """Blocking client; see the module docstring. ``admin`` is the raw admin client."""

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        schema_timeout_ms: int = SCHEMA_TIMEOUT_MS,
        fallback: CatalogCache | None = None,
        json: bool = False,
    ) -> None:
        super().__init__(url, token, timeout_ms, schema_timeout_ms, fallback, json)
        self._search = SearchServiceClientSync(
            self.url, timeout_ms=timeout_ms, **self.codec_options
        )
        self.admin = AdminServiceClientSync(self.url, timeout_ms=timeout_ms, **self.codec_options)

    def search(
        self,
        query: str,
        *,
        sources: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 10,
        cursor: str = "",
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        mode: str = "hybrid",
        explain: bool = False,
    ) -> pb.SearchResponse:
        """Search (arguments as :func:`search_request`); may fall back, see the module doc."""
        request = search_request(
            query, sources=sources, kinds=kinds, limit=limit, cursor=cursor, include=include,
            exclude=exclude, mode=mode, explain=explain,
        )  # fmt: skip
        try:
            return self._search.search(request, headers=self.headers)
        except ConnectError as exc:
            if self.fallback is not None and exc.code in _FALLBACK_CODES:
                return self.fallback.search(request)
            raise _typed(exc) from exc

    def get_schema(self, source: str, known_hash: str = "") -> pb.GetSchemaResponse:
        """The full schema of ``source`` unless its hash is ``known_hash``."""
        request = pb.GetSchemaRequest(source=source, known_hash=known_hash)
        try:
            return self._search.get_schema(
                request, headers=self.headers, timeout_ms=self.schema_timeout_ms
            )
        except ConnectError as exc:
            raise _typed(exc) from exc

    def report_usage(self, query_id: str, selected_ids: Sequence[str]) -> pb.ReportUsageResponse:
        """Report which results of the search ``query_id`` were used."""
        request = pb.ReportUsageRequest(query_id=query_id, selected_ids=list(selected_ids))
        try:
            return self._search.report_usage(request, headers=self.headers)
        except ConnectError as exc:
            raise _typed(exc) from exc

    def sync_catalog(self) -> int:
        """Refresh the fallback cache from ``GetSchema``; returns how many sources changed."""
        if self.fallback is None:
            return 0
        changed = 0
        for source in self.fallback.sources:
            response = self.get_schema(source, self.fallback.known_hash(source))
            self.fallback.store(response)
            changed += int(response.changed)
        return changed

    def close(self) -> None:
        self._search.close()
        self.admin.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncSchemaSeekClient(_Base):
    """The asyncio twin of :class:`SchemaSeekClient`."""

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        schema_timeout_ms: int = SCHEMA_TIMEOUT_MS,
        fallback: CatalogCache | None = None,
        json: bool = False,
    ) -> None:
        super().__init__(url, token, timeout_ms, schema_timeout_ms, fallback, json)
        self._search = SearchServiceClient(self.url, timeout_ms=timeout_ms, **self.codec_options)
        self.admin = AdminServiceClient(self.url, timeout_ms=timeout_ms, **self.codec_options)

    async def search(
        self,
        query: str,
        *,
        sources: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 10,
        cursor: str = "",
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        mode: str = "hybrid",
        explain: bool = False,
    ) -> pb.SearchResponse:
        """Search (arguments as :func:`search_request`); may fall back, see the module doc."""
        request = search_request(
            query, sources=sources, kinds=kinds, limit=limit, cursor=cursor, include=include,
            exclude=exclude, mode=mode, explain=explain,
        )  # fmt: skip
        try:
            return await self._search.search(request, headers=self.headers)
        except ConnectError as exc:
            if self.fallback is not None and exc.code in _FALLBACK_CODES:
                return self.fallback.search(request)
            raise _typed(exc) from exc

    async def get_schema(self, source: str, known_hash: str = "") -> pb.GetSchemaResponse:
        request = pb.GetSchemaRequest(source=source, known_hash=known_hash)
        try:
            return await self._search.get_schema(
                request, headers=self.headers, timeout_ms=self.schema_timeout_ms
            )
        except ConnectError as exc:
            raise _typed(exc) from exc

    async def report_usage(
        self, query_id: str, selected_ids: Sequence[str]
    ) -> pb.ReportUsageResponse:
        request = pb.ReportUsageRequest(query_id=query_id, selected_ids=list(selected_ids))
        try:
            return await self._search.report_usage(request, headers=self.headers)
        except ConnectError as exc:
            raise _typed(exc) from exc

    async def close(self) -> None:
        await self._search.close()
        await self.admin.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
