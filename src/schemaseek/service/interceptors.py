"""Connect interceptors: observe (metrics, one log line per RPC) then guard (auth, rate limit).

Both are metadata interceptors at the front of the chain, so a rejected request is refused
before its body is read. The observer starts first, so it also sees the guard's refusals.
"""

from __future__ import annotations

import time
from typing import Any

import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from schemaseek.service.auth import RateLimiter, TokenAuth, client_host
from schemaseek.service.metrics import ServiceMetrics

__all__ = ["GuardInterceptor", "McpGuard", "ObserveInterceptor"]

log = structlog.get_logger("schemaseek.rpc")


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
        principal = self.auth.authenticate(ctx.request_headers.get("authorization"), host)
        self.auth.authorize(principal, ctx.method.service_name)
        wait = self.limiter.take(principal.name if self.auth.enabled else host)
        if wait > 0:
            ctx.response_headers["retry-after"] = str(max(1, round(wait + 0.5)))
            raise _limited(wait)

    async def on_end(
        self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        return None


class McpGuard:
    """The same token check and rate limit for ``/mcp`` requests (plain HTTP, no RPC context);
    every role may use MCP."""

    def __init__(self, auth: TokenAuth, limiter: RateLimiter) -> None:
        self.auth = auth
        self.limiter = limiter

    def __call__(self, authorization: str | None, host: str) -> None:
        principal = self.auth.authenticate(authorization, host)
        wait = self.limiter.take(principal.name if self.auth.enabled else host)
        if wait > 0:
            raise _limited(wait)


def _limited(wait: float) -> ConnectError:
    return ConnectError(Code.RESOURCE_EXHAUSTED, f"rate limit exceeded; retry in {wait:.2f} s")
