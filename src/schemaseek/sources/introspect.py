"""GraphQL over HTTP(S): introspect a live endpoint into a :class:`SourceSchema` (httpx).

:func:`load_url` POSTs graphql-core's introspection query (descriptions included) as JSON and
builds the same documents, edges and order-free hash as an SDL file (:mod:`.graphql`).

* **Headers** come as a mapping or as ``"Name: value"`` strings (``--header`` on the command
  line). A value written ``env:NAME`` is read from the environment variable ``NAME`` when the
  request is made, so tokens stay out of config files: ``Authorization: env:GITHUB_TOKEN``
  (the variable holding ``Bearer ghp_...``).
* **Limits.** ``timeout`` seconds for connecting and for each read, and for the whole body;
  ``max_bytes`` for the response body, which is streamed and abandoned as soon as it is larger
  (a ``Content-Length`` above the limit fails before reading).
* **Retries.** Connection errors, timeouts and HTTP 429/5xx are retried ``retries`` times with
  exponential backoff and jitter: before retry n (1, 2, ...) the fetcher sleeps
  ``min(max_backoff, backoff * 2**(n-1))``, half of it fixed and half random, or the server's
  ``Retry-After`` (capped the same way) when it is larger. Other 4xx answers fail at once.
* **Errors.** Every failure raises :class:`SourceError` naming the redacted URL and the cause:
  unreachable (after n attempts), HTTP status, body too large, not JSON, GraphQL ``errors``,
  no ``data.__schema`` (introspection disabled), an invalid schema.
* **Secrets.** Header values and URL credentials never appear in errors, logs (httpx's and
  httpcore's records are scrubbed while the fetch runs), ``SourceSchema.raw`` (which keeps the
  printed SDL and the redacted URL) or the hash.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx
from graphql import GraphQLError, build_client_schema, get_introspection_query

from schemaseek.errors import ConfigError, SourceError
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.graphql import from_schema
from schemaseek.sources.redact import Secrets, redact_url, redacting_loggers

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "fetch_introspection",
    "load_url",
    "parse_header",
    "resolve_headers",
]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_RETRIES = 3
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_ENV_PREFIX = "env:"
_QUERY = get_introspection_query(descriptions=True)

Headers = Mapping[str, str] | Iterable[str]


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` (or ``Name:value``) → ``(name, value)``; the value may be ``env:VAR``."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or not name or any(c.isspace() for c in name):
        raise ConfigError(f"invalid header {name or text[:20]!r}: write it as 'Name: value'")
    return name, value.strip()


def resolve_headers(
    headers: Headers | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Headers as a dict with ``env:VAR`` values read from the environment.

    A missing variable raises :class:`ConfigError` naming the variable (never a value).
    """
    env = os.environ if environ is None else environ
    pairs = (
        list(headers.items())
        if isinstance(headers, Mapping)
        else [parse_header(h) for h in headers or ()]
    )
    resolved: dict[str, str] = {}
    for name, value in pairs:
        if value.startswith(_ENV_PREFIX):
            variable = value[len(_ENV_PREFIX) :].strip()
            if variable not in env:
                raise ConfigError(f"header {name}: environment variable {variable} is not set")
            value = env[variable]
        resolved[name] = value
    return resolved


class _Retryable(Exception):
    """A failure worth another attempt (connection, timeout, 429/5xx)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


def fetch_introspection(
    url: str,
    *,
    headers: Headers | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    retries: int = DEFAULT_RETRIES,
    backoff: float = 0.5,
    max_backoff: float = 10.0,
    verify: bool | str = True,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """The endpoint's ``__schema`` introspection object (see the module docstring)."""
    if timeout <= 0 or max_bytes <= 0 or retries < 0:
        raise ConfigError("timeout and max_bytes must be positive and retries at least 0")
    resolved = resolve_headers(headers)
    secrets = Secrets()
    secrets.add_url(url)
    secrets.add_headers(resolved)
    safe = redact_url(url)
    if urlsplit(url).scheme not in ("http", "https"):
        raise ConfigError(f"GraphQL URL {safe} must start with http:// or https://")
    request_headers = {
        "Accept": "application/graphql-response+json, application/json",
        "User-Agent": "schemaseek",
        **resolved,
    }
    body = {"query": _QUERY, "operationName": "IntrospectionQuery"}
    jitter = random.Random()
    with (
        redacting_loggers(secrets),
        httpx.Client(
            timeout=timeout, verify=verify, transport=transport, follow_redirects=True
        ) as client,
    ):
        for attempt in range(retries + 1):
            try:
                status, raw = _post(client, url, body, request_headers, timeout, max_bytes, safe)
                return _schema_object(raw, status, safe, secrets)
            except _Retryable as exc:
                reason = secrets.scrub(str(exc))
                if attempt == retries:
                    tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
                    raise SourceError(
                        f"GraphQL endpoint {safe} failed after {tries}: {reason}"
                    ) from None
                delay = min(max_backoff, backoff * 2**attempt)
                delay = delay / 2 + jitter.uniform(0, delay / 2)
                if exc.retry_after is not None:
                    delay = max(delay, min(max_backoff, exc.retry_after))
                logger.debug("retrying %s in %.2fs: %s", safe, delay, reason)
                sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def _post(
    client: httpx.Client,
    url: str,
    body: dict[str, str],
    headers: dict[str, str],
    timeout: float,
    max_bytes: int,
    safe: str,
) -> tuple[int, bytes]:
    """(status, body) of one attempt; raises ``_Retryable`` or :class:`SourceError`."""
    deadline = time.monotonic() + timeout
    try:
        with client.stream("POST", url, json=body, headers=headers) as response:
            status = response.status_code
            if status in _RETRY_STATUS:
                raise _Retryable(f"HTTP {status}", _retry_after(response))
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise SourceError(_too_large(safe, max_bytes, f"{int(declared)} bytes announced"))
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise SourceError(_too_large(safe, max_bytes, "more was sent"))
                if time.monotonic() > deadline:
                    raise _Retryable(f"the response took longer than {timeout:g}s")
                chunks.append(chunk)
            raw = b"".join(chunks)
    except httpx.TimeoutException as exc:
        raise _Retryable(f"timed out ({type(exc).__name__})") from None
    except httpx.TransportError as exc:
        raise _Retryable(f"{type(exc).__name__}: {exc}") from None
    if status >= 400 and not _json_errors(raw):
        raise SourceError(f"GraphQL endpoint {safe} answered HTTP {status}")
    return status, raw


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _too_large(safe: str, max_bytes: int, detail: str) -> str:
    return f"GraphQL endpoint {safe}: response larger than max_bytes={max_bytes} ({detail})"


def _json_errors(raw: bytes) -> bool:
    try:
        payload = json.loads(raw)
    except ValueError:
        return False
    return isinstance(payload, dict) and bool(payload.get("errors"))


def _schema_object(raw: bytes, status: int, safe: str, secrets: Secrets) -> dict[str, Any]:
    try:
        payload = json.loads(raw)
    except ValueError:
        snippet = secrets.scrub(raw[:60].decode("utf-8", "replace")).replace("\n", " ")
        raise SourceError(
            f"GraphQL endpoint {safe} did not answer JSON (it starts {snippet!r})"
        ) from None
    if not isinstance(payload, dict):
        raise SourceError(f"GraphQL endpoint {safe} answered JSON that is not an object")
    data = payload.get("data")
    schema = data.get("__schema") if isinstance(data, dict) else None
    if isinstance(schema, dict):
        return schema
    errors = payload.get("errors")
    if isinstance(errors, list) and errors:
        messages = [str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors[:3]]
        text = secrets.scrub("; ".join(messages))[:500]
        raise SourceError(f"GraphQL endpoint {safe} answered HTTP {status} with errors: {text}")
    raise SourceError(
        f"GraphQL endpoint {safe} answered without data.__schema "
        "(is introspection disabled, or is this not a GraphQL endpoint?)"
    )


def load_url(
    url: str,
    source: str | None = None,
    *,
    headers: Headers | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    retries: int = DEFAULT_RETRIES,
    backoff: float = 0.5,
    verify: bool | str = True,
    transport: httpx.BaseTransport | None = None,
) -> SourceSchema:
    """Introspect a live GraphQL endpoint into a source named ``source`` (default: the host)."""
    schema_object = fetch_introspection(
        url,
        headers=headers,
        timeout=timeout,
        max_bytes=max_bytes,
        retries=retries,
        backoff=backoff,
        verify=verify,
        transport=transport,
    )
    safe = redact_url(url)
    try:
        schema = build_client_schema({"__schema": schema_object})  # type: ignore[typeddict-item]
    except (GraphQLError, TypeError, KeyError, ValueError) as exc:
        raise SourceError(f"GraphQL endpoint {safe}: invalid introspection result: {exc}") from None
    name = source or urlsplit(url).hostname or "graphql"
    built = from_schema(schema, name)
    built.raw["url"] = safe
    return built
