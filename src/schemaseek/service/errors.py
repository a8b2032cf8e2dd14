"""Library errors → Connect/gRPC status codes, and the one JSON error shape.

Every error the service answers, whether from an RPC or from plain HTTP (unknown path, bad
content type, health), has the Connect error body ``{"code": "...", "message": "..."}``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from http import HTTPStatus
from typing import Any, TypeVar

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from schemaseek.errors import (
    ConfigError,
    DeadlineExceededError,
    EmbeddingError,
    GlossaryError,
    SourceError,
    UnknownSourceError,
)
from schemaseek.federation import NoEngineError
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.query.shared import Deadline
from schemaseek.service.cursor import CursorError
from schemaseek.service.logs import REQUEST_ID
from schemaseek.snapshots.manifest import SnapshotError
from schemaseek.sources.redact import redact_text

__all__ = [
    "HTTP_CODES",
    "error_body",
    "http_error_body",
    "request_deadline",
    "run_blocking",
    "to_connect_error",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: HTTP status → Connect code for errors raised outside an RPC handler.
HTTP_CODES: dict[int, Code] = {
    400: Code.INVALID_ARGUMENT,
    401: Code.UNAUTHENTICATED,
    403: Code.PERMISSION_DENIED,
    404: Code.NOT_FOUND,
    405: Code.UNIMPLEMENTED,
    408: Code.DEADLINE_EXCEEDED,
    409: Code.ABORTED,
    413: Code.RESOURCE_EXHAUSTED,
    415: Code.INVALID_ARGUMENT,
    429: Code.RESOURCE_EXHAUSTED,
    503: Code.UNAVAILABLE,
}


def error_body(code: Code, message: str) -> bytes:
    """The JSON error shape."""
    return json.dumps({"code": code.value, "message": message}, ensure_ascii=False).encode()


def http_error_body(status: int) -> bytes:
    """The JSON error shape for a bare HTTP error status."""
    code = HTTP_CODES.get(status, Code.UNKNOWN)
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "error"
    return error_body(code, phrase.lower())


def to_connect_error(exc: BaseException) -> ConnectError:
    """The status a library error answers with, its message with URLs redacted; anything
    unexpected is INTERNAL, logged with the request id."""
    if isinstance(exc, ConnectError):
        return exc
    message = redact_text(str(exc) or type(exc).__name__)
    if isinstance(exc, (InvalidQueryError, CursorError, GlossaryError)):
        return ConnectError(Code.INVALID_ARGUMENT, message)
    if isinstance(exc, UnknownSourceError):
        return ConnectError(Code.NOT_FOUND, message)
    if isinstance(exc, NoEngineError):
        return ConnectError(Code.UNAVAILABLE, message)
    if isinstance(exc, DeadlineExceededError):
        return ConnectError(Code.DEADLINE_EXCEEDED, message)
    if isinstance(exc, SnapshotError):
        return ConnectError(Code.NOT_FOUND, message)
    if isinstance(exc, ConfigError):
        return ConnectError(Code.FAILED_PRECONDITION, message)
    if isinstance(exc, (SourceError, EmbeddingError)):
        return ConnectError(Code.UNAVAILABLE, message)
    if isinstance(exc, TimeoutError):
        return ConnectError(Code.DEADLINE_EXCEEDED, "the operation timed out")
    request_id = REQUEST_ID.get()
    logger.error(
        "unexpected error in a handler (request %s)", request_id or "-", exc_info=exc,
        extra={"request_id": request_id},
    )  # fmt: skip
    return ConnectError(Code.INTERNAL, f"internal error (request id {request_id or '-'})")


def request_deadline(ctx: RequestContext[Any, Any], max_ms: int) -> Deadline:
    """The deadline of a request: the client's (Connect timeout header, gRPC deadline)
    capped by the server's maximum ``max_ms``."""
    left = ctx.timeout_ms
    return Deadline.within(None if left is None else left / 1000.0, max_ms / 1000.0)


async def run_blocking(
    executor: Executor, fn: Callable[..., T], *args: Any, deadline: Deadline | None = None
) -> T:
    """``fn(*args)`` on ``executor`` (blocking work off the event loop), waited for until
    ``deadline`` at most (``fn`` should watch it too, to stop its work); a failure becomes
    the :class:`ConnectError` :func:`to_connect_error` maps it to."""
    loop = asyncio.get_running_loop()
    left = deadline.remaining() if deadline is not None else None
    try:
        work = loop.run_in_executor(executor, functools.partial(fn, *args))
        return await asyncio.wait_for(work, left) if left is not None else await work
    except TimeoutError as exc:
        raise ConnectError(Code.DEADLINE_EXCEEDED, "the request ran past its deadline") from exc
    except Exception as exc:
        raise to_connect_error(exc) from exc
