"""Secrets never leave a source: one helper hides them in URLs, headers, messages and logs.

Every source that takes credentials (database URLs with passwords, GraphQL auth headers) builds
a :class:`Secrets` from them and passes everything it shows through it:

* :func:`redact_url` writes a URL with its password and secret-looking query parameters
  (``password``, ``token``, ``api_key``, ``private_key_file_pwd`` ...) replaced by ``***``; it
  is the only form of a URL that goes into errors, logs, ``SourceSchema.raw`` or output;
* :func:`redact_headers` keeps header names and masks every value except harmless ones
  (``Accept``, ``Content-Type``, ``User-Agent``);
* :meth:`Secrets.scrub` masks every known secret value (also percent-encoded, and each long
  word of a header value such as the token after ``Bearer``) inside any text, such as a driver's
  error message that quotes the connection string;
* :func:`redacting_loggers` scrubs the records of third-party loggers (``httpx``, ``httpcore``,
  ``sqlalchemy``) while a fetch runs, so a library that logs a URL cannot leak it either;
* :func:`redact_text` redacts every URL inside free text (log lines, error messages, events),
  and :func:`redact_setting` is the one form in which any setting is shown (``GetConfig``,
  logs): a secret-named setting is masked whole, anything else has its URLs redacted.

Schema hashes are computed from schema content only, never from URLs or headers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

__all__ = [
    "MASK",
    "Secrets",
    "redact_headers",
    "redact_setting",
    "redact_text",
    "redact_url",
    "redacting_loggers",
]

MASK = "***"
"""What a secret is replaced with."""

_SECRET_NAME = re.compile(
    r"pass|pwd|secret|token|api[_-]?key|apikey|private|credential|signature|\bsig\b|auth|session",
    re.IGNORECASE,
)
_HARMLESS_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "content-type", "user-agent"}
)
_LOGGERS = (
    "httpx",
    "httpcore",
    # httpcore logs on these children, which exist only once it is imported
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "sqlalchemy",
    "snowflake",
    "psycopg",
    "pymysql",
)


def _secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def redact_url(url: object) -> str:
    """``url`` (text or a SQLAlchemy ``URL``) with password and secret query values masked.

    Anything that does not parse as a URL is replaced whole: it might be a DSN with a password.
    """
    render = getattr(url, "render_as_string", None)
    text = str(render(hide_password=False)) if callable(render) else str(url)
    try:
        parts = urlsplit(text)
    except ValueError:
        return "<unparsable URL>"
    if not parts.scheme or (not parts.netloc and not parts.path):
        return "<unparsable URL>"
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    if at:
        user, colon, _password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{user}@{host}"
    query = "&".join(_redact_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    if netloc == parts.netloc and query == parts.query:
        return text
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s'\"<>()\[\]{}]+")


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted (:func:`redact_url`)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


def redact_setting(name: str, value: object) -> str:
    """How the setting ``name`` may be shown: masked whole when its name says it is secret
    (``cursor_secret``, ``api_key``, ``password`` ...; not ``*_env``, which names a variable),
    else as text with every URL in it redacted."""
    text = "" if value is None else str(value)
    leaf = name.rsplit(".", 1)[-1]
    if _secret_name(leaf) and not leaf.endswith("_env"):
        return MASK if text else ""
    return redact_text(text)


def _redact_pair(pair: str) -> str:
    name, eq, _value = pair.partition("=")
    return f"{name}={MASK}" if eq and _secret_name(unquote(name)) else pair


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names with their values masked, except harmless ones (``Accept`` ...)."""
    return {k: v if k.lower() in _HARMLESS_HEADERS else MASK for k, v in headers.items()}


class Secrets:
    """A set of secret strings; :meth:`scrub` masks each of them inside any text."""

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._values: set[str] = set()
        for value in values:
            self.add(value)

    def __bool__(self) -> bool:
        return bool(self._values)

    def add(self, value: str | None) -> None:
        """Remember ``value`` (and its percent-encoded and decoded forms); empty is ignored."""
        if not value:
            return
        for form in (value, quote(value, safe=""), unquote(value)):
            if form:
                self._values.add(form)

    def add_url(self, url: object) -> None:
        """Remember a URL's password and the values of its secret-looking query parameters."""
        password = getattr(url, "password", None)
        if password is not None:
            self.add(str(password))
        render = getattr(url, "render_as_string", None)
        text = str(render(hide_password=False)) if callable(render) else str(url)
        try:
            parts = urlsplit(text)
        except ValueError:
            self.add(text)
            return
        userinfo, at, _host = parts.netloc.rpartition("@")
        if at and ":" in userinfo:
            self.add(userinfo.partition(":")[2])
        for pair in parts.query.split("&") if parts.query else ():
            name, _eq, value = pair.partition("=")
            if _secret_name(unquote(name)):
                self.add(value)

    def add_headers(self, headers: Mapping[str, str]) -> None:
        """Remember every non-harmless header value, and each of its words of 6+ characters
        (the token after ``Bearer`` may show up on its own; the scheme word is not secret)."""
        for name, value in headers.items():
            if name.lower() in _HARMLESS_HEADERS:
                continue
            self.add(value)
            words = value.split()
            if len(words) > 1 and words[0].isalpha():
                words = words[1:]  # "Bearer", "Basic", "token": the scheme
            for word in words:
                if len(word) >= 6:
                    self.add(word)

    def scrub(self, text: str) -> str:
        """``text`` with every known secret replaced by ``***`` (longest first)."""
        for value in sorted(self._values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, MASK)
        return text

    def scrub_any(self, value: Any) -> Any:
        """Strings scrubbed, containers scrubbed recursively, anything else unchanged."""
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, Mapping):
            return {self.scrub_any(k): self.scrub_any(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.scrub_any(v) for v in value)
        return value


class _ScrubFilter(logging.Filter):
    """Rewrites each record's message with the secrets masked (never drops a record)."""

    def __init__(self, secrets: Secrets) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken record is the logger's problem, not ours
            return True
        record.msg = self.secrets.scrub(message)
        record.args = None
        return True


@contextmanager
def redacting_loggers(secrets: Secrets, prefixes: Iterable[str] = _LOGGERS) -> Iterator[None]:
    """While the block runs, scrub ``secrets`` from the records of the loggers under
    ``prefixes`` (the loggers that exist now: libraries create theirs at import)."""
    if not secrets:
        yield
        return
    wanted = tuple(prefixes)
    names = [
        name
        for name in list(logging.Logger.manager.loggerDict)
        if name in wanted or name.startswith(tuple(p + "." for p in wanted))
    ]
    loggers = [logging.getLogger(name) for name in {*wanted, *names}]
    scrubber = _ScrubFilter(secrets)
    for logger in loggers:
        logger.addFilter(scrubber)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(scrubber)
