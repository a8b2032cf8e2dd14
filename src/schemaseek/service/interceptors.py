"""Connect interceptors: observe (metrics, one log line per RPC), guard (auth, rate limit),
then map errors (any library error becomes its status, :func:`to_connect_error`).

All are metadata interceptors at the front of the chain, so a rejected request is refused
before its body is read. The observer starts first, so it also sees the guard's refusals, and
ends last, so it logs the status the client gets. Failed token checks draw from the client
address's bucket too, so guessing tokens is rate-limited like everything else. The gRPC health
service answers without a token (as ``/health/ready`` does), within the rate limit.
"""

from __future__ import annotations

import time
from typing import Any

import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from schemaseek.service.auth import Principal, RateLimiter, TokenAuth, client_host
from schemaseek.service.errors import to_connect_error
from schemaseek.service.metrics import ServiceMetrics

__all__ = ["ErrorInterceptor", "GuardInterceptor", "McpGuard", "ObserveInterceptor", "RateLimited"]

log = structlog.get_logger("schemaseek.rpc")
#: services any caller may use without a token (load balancers' health checks)
OPEN_SERVICES = frozenset({"grpc.health.v1.Health"})


class RateLimited(ConnectError):
    """``resource_exhausted`` with the seconds to wait (``retry-after``)."""

    def __init__(self, wait: float) -> None:
        super().__init__(Code.RESOURCE_EXHAUSTED, f"rate limit exceeded; retry in {wait:.2f} s")
        self.retry_after = max(1, round(wait + 0.5))


class ObserveInterceptor:
    """Counts and times every RPC and logs it."""

    def __init__(self, metrics: ServiceMetrics) -> None:
        self.metrics = metrics

    async def on_start(self, ctx: RequestContext[Any, Any]) -> float:
        return time.perf_counter()

    async def on_end(
        self, token: float, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        seconds = time.perf_counter() - token
        method = ctx.method.name
        code = "ok"
        if isinstance(error, ConnectError):
            code = error.code.value
        elif error is not None:
            code = Code.UNKNOWN.value
        self.metrics.observe_rpc(method, code, seconds)
        event = log.info if error is None else log.warning
        event(
            "rpc",
            method=f"{ctx.method.service_name}/{method}",
            code=code,
            ms=round(seconds * 1000.0, 2),
            client=client_host(ctx),
            error=str(error) if error is not None else None,
        )


class GuardInterceptor:
    """Authenticates, authorizes by role and applies the per-client token bucket."""

    def __init__(self, auth: TokenAuth, limiter: RateLimiter) -> None:
        self.auth = auth
        self.limiter = limiter

    async def on_start(self, ctx: RequestContext[Any, Any]) -> None:
        host = client_host(ctx)
        if ctx.method.service_name in OPEN_SERVICES:
            _take(self.limiter, host)
            return
        try:
            principal = _admit(
                self.auth, self.limiter, ctx.request_headers.get("authorization"), host
            )
        except RateLimited as exc:
            ctx.response_headers["retry-after"] = str(exc.retry_after)
            raise
        self.auth.authorize(principal, ctx.method.service_name)

    async def on_end(
        self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        return None


class ErrorInterceptor:
    """Turns any error a handler lets out into its status (:func:`to_connect_error`), so
    every method answers library errors alike (an unknown source is ``not_found``
    everywhere) and only real faults are ``internal``, logged with the request id."""

    async def on_start(self, ctx: RequestContext[Any, Any]) -> None:
        return None

    async def on_end(
        self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        if error is not None and not isinstance(error, ConnectError):
            raise to_connect_error(error) from error


class McpGuard:
    """The same token check and rate limit for ``/mcp`` requests (plain HTTP, no RPC context);
    every role may use MCP."""

    def __init__(self, auth: TokenAuth, limiter: RateLimiter) -> None:
        self.auth = auth
        self.limiter = limiter

    def __call__(self, authorization: str | None, host: str) -> None:
        _admit(self.auth, self.limiter, authorization, host)


def _admit(
    auth: TokenAuth, limiter: RateLimiter, authorization: str | None, host: str
) -> Principal:
    """Authenticate and take from the caller's bucket: the token's, or the address's when
    tokens are off or the token check fails (a failure is then answered as it is, unless the
    address is over its limit)."""
    try:
        principal = auth.authenticate(authorization, host)
    except ConnectError:
        _take(limiter, f"unauthenticated@{host}")
        raise
    _take(limiter, principal.name if auth.enabled else host)
    return principal


def _take(limiter: RateLimiter, client: str) -> None:
    wait = limiter.take(client)
    if wait > 0:
        raise RateLimited(wait)
