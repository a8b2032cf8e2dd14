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

from schemaseek.errors import ConfigError, EmbeddingError, GlossaryError, SourceError
from schemaseek.federation import NoEngineError
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.service.cursor import CursorError
from schemaseek.snapshots.manifest import SnapshotError

__all__ = ["HTTP_CODES", "error_body", "run_blocking", "to_connect_error"]

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
    """The status a library error answers with (unexpected ones: INTERNAL, logged)."""
    if isinstance(exc, ConnectError):
        return exc
    message = str(exc) or type(exc).__name__
    if isinstance(exc, (InvalidQueryError, CursorError, GlossaryError)):
        return ConnectError(Code.INVALID_ARGUMENT, message)
    if isinstance(exc, NoEngineError):
        return ConnectError(Code.UNAVAILABLE, message)
    if isinstance(exc, KeyError):
        return ConnectError(Code.NOT_FOUND, f"unknown source {exc.args[0]!r}")
    if isinstance(exc, SnapshotError):
        return ConnectError(Code.NOT_FOUND, message)
    if isinstance(exc, ConfigError):
        return ConnectError(Code.FAILED_PRECONDITION, message)
    if isinstance(exc, (SourceError, EmbeddingError)):
        return ConnectError(Code.UNAVAILABLE, message)
    if isinstance(exc, TimeoutError):
        return ConnectError(Code.DEADLINE_EXCEEDED, "the operation timed out")
    logger.exception("unexpected error in a handler", exc_info=exc)
    return ConnectError(Code.INTERNAL, "internal error")


async def run_blocking(executor: Executor, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on ``executor`` (blocking work off the event loop); a failure becomes the
    :class:`ConnectError` :func:`to_connect_error` maps it to."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(executor, functools.partial(fn, *args))
    except Exception as exc:
        raise to_connect_error(exc) from exc
