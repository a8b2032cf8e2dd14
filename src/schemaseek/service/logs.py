"""Structured JSON logs with request ids (structlog), configured by ``serve`` only.

:func:`configure_logging` routes the standard library's records (engines, snapshots, pollers)
through structlog's formatter too, so every line on stderr is one JSON object. The request id
of the request being handled is bound in a context variable by the HTTP layer.
"""

from __future__ import annotations

import logging
import sys
import uuid
from contextvars import ContextVar

import structlog

__all__ = ["REQUEST_ID", "configure_logging", "new_request_id"]

REQUEST_ID: ContextVar[str] = ContextVar("schemaseek_request_id", default="")


def new_request_id(given: str | None = None) -> str:
    """The caller's ``x-request-id`` when it is sane, else a new one."""
    if given and len(given) <= 128 and given.isascii() and given.isprintable():
        return given
    return uuid.uuid4().hex


def _add_request_id(
    _logger: object, _method: str, event: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    request_id = REQUEST_ID.get()
    if request_id and "request_id" not in event:
        event["request_id"] = request_id
    return event


def configure_logging(level: str = "info", fmt: str = "json") -> None:
    """JSON (or console) lines on stderr for structlog and stdlib loggers alike."""
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_request_id,
    ]
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("hypercorn.access",):
        logging.getLogger(noisy).setLevel(logging.WARNING)
