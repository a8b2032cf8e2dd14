"""Structured JSON logs with request ids (structlog), configured by ``serve`` only.

:func:`configure_logging` routes the standard library's records (engines, snapshots, pollers)
through structlog's formatter too, so every line on stderr is one JSON object. The request id
of the request being handled is bound in a context variable by the HTTP layer. Every line
passes through one redaction step last: URLs lose their passwords and secret query values
(:func:`~schemaseek.sources.redact.redact_text`) and the configured secret values (cursor
secret, API key) are masked wherever they appear, whichever library logged them.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import structlog

from schemaseek.sources.redact import Secrets, redact_text

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


class _Redact:
    """The last step before a line is written: see the module docstring."""

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets

    def clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.secrets.scrub(redact_text(value))
        if isinstance(value, dict):
            return {k: self.clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.clean(v) for v in value]
        return value

    def __call__(
        self, _logger: object, _method: str, event: structlog.typing.EventDict
    ) -> structlog.typing.EventDict:
        return {k: self.clean(v) for k, v in event.items()}


def configure_logging(
    level: str = "info", fmt: str = "json", secrets: Iterable[str | None] = ()
) -> None:
    """JSON (or console) lines on stderr for structlog and stdlib loggers alike, with URLs
    redacted and ``secrets`` masked."""
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
            _Redact(Secrets(secrets)),
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
