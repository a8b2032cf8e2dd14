"""Bearer tokens with roles, per-client token buckets, and the RPC guard interceptor.

Tokens are configured as SHA-256 digests; a presented token is hashed and compared with every
configured digest using :func:`hmac.compare_digest` (no early exit, so timing says nothing about
which digest was close). ``admin`` may call everything, ``search`` only ``SearchService``.
Without configured tokens every caller is an anonymous admin: the server then binds to
loopback only (see :meth:`~schemaseek.service.settings.ServiceConfig.check_binding`).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from schemaseek.service.settings import TokenConfig

__all__ = ["Principal", "RateLimiter", "TokenAuth"]

ADMIN_SERVICE = "schemaseek.v1.AdminService"
MAX_CLIENTS = 10_000


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the token's name (or the client address) and role."""

    name: str
    role: str


class TokenAuth:
    """Checks ``Authorization: Bearer <token>`` against the configured digests."""

    def __init__(self, tokens: Sequence[TokenConfig]) -> None:
        self.tokens = list(tokens)

    @property
    def enabled(self) -> bool:
        return bool(self.tokens)

    def authenticate(self, header: str | None, client: str | None) -> Principal:
        """The caller, or :class:`ConnectError` UNAUTHENTICATED."""
        if not self.tokens:
            return Principal(f"anonymous@{client or '?'}", "admin")
        if not header:
            raise ConnectError(Code.UNAUTHENTICATED, "missing bearer token")
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise ConnectError(Code.UNAUTHENTICATED, "expected 'Authorization: Bearer <token>'")
        digest = hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
        found: TokenConfig | None = None
        for candidate in self.tokens:
            if hmac.compare_digest(digest, candidate.sha256):
                found = candidate
        if found is None:
            raise ConnectError(Code.UNAUTHENTICATED, "invalid bearer token")
        return Principal(found.name, found.role)

    @staticmethod
    def authorize(principal: Principal, service: str) -> None:
        """PERMISSION_DENIED unless the role may call ``service``."""
        if service == ADMIN_SERVICE and principal.role != "admin":
            raise ConnectError(
                Code.PERMISSION_DENIED, f"token {principal.name!r} may not call {service}"
            )


class RateLimiter:
    """Token buckets per client: ``capacity`` requests, refilled at ``capacity / window_s``
    per second; the least recently seen clients are forgotten beyond ``MAX_CLIENTS``."""

    def __init__(self, capacity: int, window_s: float) -> None:
        self.capacity = float(capacity)
        self.rate = capacity / window_s
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str, now: float | None = None) -> float:
        """0.0 when the request may go ahead, else the seconds until a token is available."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.get(client, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                wait = 0.0
            else:
                self._buckets[client] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            self._buckets.move_to_end(client)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        return wait


def client_host(ctx: RequestContext[object, object]) -> str:
    """The caller's address without the port."""
    address = ctx.client_address or "?"
    return address.rsplit(":", 1)[0] if ":" in address else address
