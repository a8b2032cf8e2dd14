"""Clients of the schemaseek network service (Connect protocol; sync and async).

    from schemaseek.client import SchemaSeekClient

    with SchemaSeekClient("http://127.0.0.1:8081", token="...") as client:
        answer = client.search("royalty payments for Sony", limit=5)
        print([r.id for r in answer.results])

Calls time out after 500 ms (``GetSchema``: 10 s). Failures raise a :class:`ServiceError`
subclass named after the status code. With ``fallback=OfflineSchemaCache(dir, sources)``, a search
that cannot reach the service (unavailable, timed out) is answered keyword-only from the
locally cached catalog (``degraded`` is set); :meth:`SchemaSeekClient.sync_catalog` keeps that
cache current. The address defaults to ``$SCHEMASEEK_URL``, else ``$SEARCH_URL`` (the spec's
name), else ``http://127.0.0.1:8081``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self, TypedDict, Unpack

from connectrpc.code import Code
from connectrpc.codec import proto_json_codec
from connectrpc.errors import ConnectError

from schemaseek.client.offline import OfflineSchemaCache
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
    "SearchArguments",
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


class SearchArguments(TypedDict, total=False):
    """The optional arguments of a search (:func:`search_request`, the clients' ``search``)."""

    sources: Sequence[str]
    kinds: Sequence[str]
    limit: int
    cursor: str
    include: Sequence[str]
    exclude: Sequence[str]
    mode: str
    explain: bool


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
    """What both clients share: the address, token, timeouts, fallback and codec."""

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        schema_timeout_ms: int = SCHEMA_TIMEOUT_MS,
        fallback: OfflineSchemaCache | None = None,
        json: bool = False,
    ) -> None:
        address = url or os.environ.get("SCHEMASEEK_URL") or os.environ.get("SEARCH_URL")
        self.url = (address or DEFAULT_URL).rstrip("/")
        self.headers = {"authorization": f"Bearer {token}"} if token else {}
        self.timeout_ms = timeout_ms
        self.schema_timeout_ms = schema_timeout_ms
        self.fallback = fallback
        self.codec_options: dict[str, Any] = {"codec": proto_json_codec()} if json else {}
        self._connect()

    @property
    def _schema_call(self) -> dict[str, Any]:
        """Call options of ``GetSchema`` (a longer timeout: a whole schema can be large)."""
        return {"headers": self.headers, "timeout_ms": self.schema_timeout_ms}

    def _connect(self) -> None:
        """Create the generated service clients (each subclass its own kind)."""
        raise NotImplementedError


@contextmanager
def _typed_errors() -> Iterator[None]:
    """A failed call raises the :class:`ServiceError` subclass named after its code."""
    try:
        yield
    except ConnectError as exc:
        raise _typed(exc) from exc


class SchemaSeekClient(_Base):
    """Blocking client; see the module docstring. ``admin`` is the raw admin client."""

    def _connect(self) -> None:
        options = {"timeout_ms": self.timeout_ms, **self.codec_options}
        self._search = SearchServiceClientSync(self.url, **options)
        self.admin = AdminServiceClientSync(self.url, **options)

    def search(self, query: str, **arguments: Unpack[SearchArguments]) -> pb.SearchResponse:
        """Search (arguments as :func:`search_request`); may fall back, see the module doc."""
        request = search_request(query, **arguments)
        try:
            return self._search.search(request, headers=self.headers)
        except ConnectError as exc:
            if self.fallback is not None and exc.code in _FALLBACK_CODES:
                return self.fallback.search(request)
            raise _typed(exc) from exc

    def get_schema(self, source: str, known_hash: str = "") -> pb.GetSchemaResponse:
        """The full schema of ``source`` unless its hash is ``known_hash``."""
        request = pb.GetSchemaRequest(source=source, known_hash=known_hash)
        with _typed_errors():
            return self._search.get_schema(request, **self._schema_call)

    def report_usage(self, query_id: str, selected_ids: Sequence[str]) -> pb.ReportUsageResponse:
        """Report which results of the search ``query_id`` were used."""
        request = pb.ReportUsageRequest(query_id=query_id, selected_ids=list(selected_ids))
        with _typed_errors():
            return self._search.report_usage(request, headers=self.headers)

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

    def _connect(self) -> None:
        options = {"timeout_ms": self.timeout_ms, **self.codec_options}
        self._search = SearchServiceClient(self.url, **options)
        self.admin = AdminServiceClient(self.url, **options)

    async def search(self, query: str, **arguments: Unpack[SearchArguments]) -> pb.SearchResponse:
        """Search (arguments as :func:`search_request`); may fall back, see the module doc."""
        request = search_request(query, **arguments)
        try:
            return await self._search.search(request, headers=self.headers)
        except ConnectError as exc:
            if self.fallback is not None and exc.code in _FALLBACK_CODES:
                return self.fallback.search(request)
            raise _typed(exc) from exc

    async def get_schema(self, source: str, known_hash: str = "") -> pb.GetSchemaResponse:
        request = pb.GetSchemaRequest(source=source, known_hash=known_hash)
        with _typed_errors():
            return await self._search.get_schema(request, **self._schema_call)

    async def report_usage(
        self, query_id: str, selected_ids: Sequence[str]
    ) -> pb.ReportUsageResponse:
        with _typed_errors():
            return await self._search.report_usage(
                pb.ReportUsageRequest(query_id=query_id, selected_ids=list(selected_ids)),
                headers=self.headers,
            )

    async def close(self) -> None:
        await self._search.close()
        await self.admin.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
