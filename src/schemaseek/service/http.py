"""The one ASGI app on one port: health, metrics, MCP and the two Connect/gRPC services.

Routes: ``GET /health`` (always 200), ``GET /health/ready`` (200 ready|degraded, 503
unavailable), ``GET /metrics``, ``/mcp`` (MCP streamable HTTP), the RPC paths of the
services in ``rpc_apps`` (``/schemaseek.v1.SearchService/*``, ``/schemaseek.v1.AdminService/*``,
the gRPC health and reflection services), and the workbench (:mod:`schemaseek.web`) at ``/``
and ``/ui/*``, which authenticates with the same tokens.

Around the RPC apps this layer binds a request id (``x-request-id``, echoed), refuses what the
Connect runtime would answer with a 5xx for a client's mistake (an unknown content encoding or
GET ``compression``, gRPC over HTTP/1.1), compresses Connect unary responses over
``compression_min_bytes`` with the best of br, zstd and gzip the client accepts, and gives
bodiless HTTP errors the one JSON error shape. Request bodies are read whole before an app
sees them (at most the size limit), except on the bidirectional reflection stream. ``/mcp``
goes through the same bearer-token check and per-client rate limit as the RPCs (``mcp_guard``;
any role may use it: its tools only search and record usage) and the same body size and JSON
depth limits (:mod:`schemaseek.service.limits`).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import brotli
import zstandard
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from schemaseek.service.backend import Backend
from schemaseek.service.errors import HTTP_CODES, error_body, http_error_body
from schemaseek.service.limits import Limits, check_json_body
from schemaseek.service.logs import REQUEST_ID, new_request_id
from schemaseek.service.metrics import CONTENT_TYPE, ServiceMetrics
from schemaseek.service.request_body import Message, Receive, RequestBody, ends_response, read_body

__all__ = ["ServiceApp"]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Checks an MCP request's ``Authorization`` header and client address; raises ConnectError.
McpGuard = Callable[[str | None, str], None]
_GUARD_STATUS = {Code.UNAUTHENTICATED: 401, Code.PERMISSION_DENIED: 403}
#: bidirectional streams: their request body is never read ahead
STREAMING_PREFIXES = ("/grpc.reflection.",)
ENCODINGS = ("identity", "gzip", "br", "zstd")
_COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "br": lambda data: brotli.compress(data, quality=4),
    "zstd": lambda data: zstandard.ZstdCompressor(level=3).compress(data),
    "gzip": lambda data: gzip.compress(data, compresslevel=5),
}


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def pick_encoding(accept: str) -> str | None:
    """The best of br, zstd, gzip that ``accept`` (Accept-Encoding) allows."""
    offered: dict[str, float] = {}
    for part in accept.split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        offered[name.strip().lower()] = q
    for name in ("br", "zstd", "gzip"):
        if offered.get(name, offered.get("*", 0.0)) > 0:
            return name
    return None


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: str = "application/json",
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


class ServiceApp:
    """See the module docstring."""

    def __init__(
        self,
        backend: Backend,
        rpc_apps: dict[str, ASGIApp],
        metrics: ServiceMetrics,
        *,
        mcp_app: ASGIApp | None = None,
        mcp_lifespan: Callable[[], contextlib.AbstractAsyncContextManager[Any]] | None = None,
        mcp_guard: McpGuard | None = None,
        web_app: ASGIApp | None = None,
        compression_min_bytes: int = 1024,
        limits: Limits | None = None,
        on_shutdown: Callable[[], None] | None = None,
    ) -> None:
        self.backend = backend
        self.rpc_apps = rpc_apps
        self.metrics = metrics
        self.mcp_app = mcp_app
        self.mcp_lifespan = mcp_lifespan
        self.mcp_guard = mcp_guard
        self.web_app = web_app
        self.compression_min_bytes = compression_min_bytes
        self.limits = limits or Limits()
        self.on_shutdown = on_shutdown
        self._stack = contextlib.AsyncExitStack()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request_id = new_request_id(_header(scope, b"x-request-id"))
        token = REQUEST_ID.set(request_id)
        body = RequestBody(receive)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            elif ends_response(message) and not body.done:
                await body.drain()
            await send(message)

        try:
            await self._route(scope, body, send_with_id)
        finally:
            REQUEST_ID.reset(token)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    if self.mcp_lifespan is not None:
                        await self._stack.enter_async_context(self.mcp_lifespan())
                    self.backend.start()
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                with contextlib.suppress(Exception):
                    await self._stack.aclose()
                if self.on_shutdown is not None:
                    self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        method: str = scope.get("method", "GET")
        if self.mcp_app is not None and (path == "/mcp" or path.startswith("/mcp/")):
            if await self._mcp_refused(scope, send):
                return
            if method == "POST":
                receive, body = await read_body(receive, self.limits.max_bytes)
                problem = check_json_body(body, self.limits)
                if problem is not None:
                    self.metrics.http.labels("/mcp", str(problem[0])).inc()
                    body = error_body(HTTP_CODES[problem[0]], problem[1])
                    await _respond(send, problem[0], body)
                    return
            await self.mcp_app(scope, receive, send)
            return
        if not path.startswith(STREAMING_PREFIXES):
            receive, _ = await read_body(receive, self.limits.max_bytes)
        if self.web_app is not None and (path == "/" or path.startswith("/ui/")):
            await self.web_app(scope, receive, self._counted("/ui", send))
            return
        for prefix, app in self.rpc_apps.items():
            if path.startswith(prefix):
                await self._rpc(app, scope, receive, send)
                return
        simple = {"/health": self._health, "/health/ready": self._ready, "/metrics": self._metrics}
        handler = simple.get(path)
        if handler is None:
            self.metrics.http.labels("other", "404").inc()
            await _respond(send, 404, http_error_body(404))
            return
        if method not in ("GET", "HEAD"):
            self.metrics.http.labels(path, "405").inc()
            await _respond(send, 405, http_error_body(405))
            return
        await handler(send)

    def _counted(self, label: str, send: Send) -> Send:
        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.metrics.http.labels(label, str(message["status"])).inc()
            await send(message)

        return counted

    async def _mcp_refused(self, scope: Scope, send: Send) -> bool:
        """Answer 401/403/429 (the JSON error shape) when the guard refuses an MCP request."""
        if self.mcp_guard is None:
            return False
        client = scope.get("client") or ("?", 0)
        try:
            self.mcp_guard(_header(scope, b"authorization") or None, str(client[0]))
        except ConnectError as exc:
            status = _GUARD_STATUS.get(exc.code, 429)
            self.metrics.http.labels("/mcp", str(status)).inc()
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            wait = getattr(exc, "retry_after", None)
            if wait is not None:
                extra.append((b"retry-after", str(wait).encode()))
            await _respond(send, status, error_body(exc.code, exc.message), extra=extra)
            return True
        return False

    async def _health(self, send: Send) -> None:
        self.metrics.http.labels("/health", "200").inc()
        await _respond(send, 200, b'{"status":"ok"}')

    async def _ready(self, send: Send) -> None:
        body = self.backend.readiness()
        status = 503 if body["status"] == "unavailable" else 200
        self.metrics.http.labels("/health/ready", str(status)).inc()
        await _respond(send, status, json.dumps(body).encode())

    async def _metrics(self, send: Send) -> None:
        self.metrics.http.labels("/metrics", "200").inc()
        await _respond(send, 200, self.metrics.render(), CONTENT_TYPE)

    async def _rpc(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = _header(scope, b"content-type").lower()
        grpc = content_type.startswith("application/grpc")
        if grpc and scope.get("http_version") != "2":
            await _respond(send, 415, error_body(Code.INVALID_ARGUMENT, "gRPC needs HTTP/2"))
            return
        streaming = grpc or content_type.startswith("application/connect+")
        name = b"connect-content-encoding" if streaming else b"content-encoding"
        encoding = _header(scope, name).strip().lower()
        if scope.get("method") == "GET":
            query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
            name, encoding = b"compression", query.get("compression", [""])[0].strip().lower()
        if not grpc and encoding and encoding not in ENCODINGS:
            message = f"unsupported {name.decode()} {encoding!r}; use one of {', '.join(ENCODINGS)}"
            await _respond(send, 400, error_body(Code.INVALID_ARGUMENT, message))
            return
        accept = _header(scope, b"accept-encoding")
        inner = dict(scope)
        if not streaming:
            inner["headers"] = [
                (k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"
            ]
        buffered = _Buffered(send, accept if not streaming else None, self)
        try:
            await app(inner, receive, buffered)
        except ConnectError as exc:  # the deadline ran out while the answer was being sent
            if not buffered.sent:
                raise
            logger.debug("%s: the response ended early: %s", scope.get("path"), exc.message)


class _Buffered:
    """Buffers a unary response (or any error) to compress it or give it the JSON shape;
    streams everything else straight through."""

    def __init__(self, send: Send, accept: str | None, owner: ServiceApp) -> None:
        self.send = send
        self.accept = accept
        self.owner = owner
        self.start: Message | None = None
        self.chunks: list[bytes] = []
        self.passthrough = False
        self.sent = False  # whether a response has started on the wire

    async def __call__(self, message: Message) -> None:
        if self.passthrough:
            await self.send(message)
            return
        if message["type"] == "http.response.start":
            status = int(message["status"])
            if self.accept is None and status < 400:
                self.passthrough = self.sent = True
                await self.send(message)
                return
            self.start = message
            return
        if message["type"] != "http.response.body" or self.start is None:
            await self.send(message)
            return
        self.chunks.append(bytes(message.get("body", b"")))
        if message.get("more_body", False):
            return
        await self._flush(b"".join(self.chunks))

    async def _flush(self, body: bytes) -> None:
        assert self.start is not None
        status = int(self.start["status"])
        headers = [
            (k, v) for k, v in self.start.get("headers", [])
            if k.lower() not in (b"content-length", b"content-encoding")
        ]  # fmt: skip
        if status >= 400 and not body:
            body = http_error_body(status)
            headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
            headers.append((b"content-type", b"application/json"))
        elif status == 200 and self.accept and len(body) > self.owner.compression_min_bytes:
            encoding = pick_encoding(self.accept)
            if encoding is not None:
                body = _COMPRESSORS[encoding](body)
                headers.append((b"content-encoding", encoding.encode()))
        headers.append((b"content-length", str(len(body)).encode()))
        self.sent = True
        await self.send({**self.start, "headers": headers})
        await self.send({"type": "http.response.body", "body": body, "more_body": False})
