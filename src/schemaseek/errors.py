"""The one exception hierarchy of schemaseek.

Every error the library raises on purpose derives from :class:`SchemaSeekError`, so callers can
catch one type. Subclasses say which part failed.
"""

from __future__ import annotations


class SchemaSeekError(Exception):
    """Base class of every error raised by schemaseek on purpose."""


class ConfigError(SchemaSeekError):
    """Invalid configuration or command-line input."""


class MissingExtraError(SchemaSeekError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package} is not installed; install it with: pip install 'schemaseek[{extra}]'"
        )
        self.package = package
        self.extra = extra


class SourceError(SchemaSeekError):
    """A schema source could not be read (file missing, endpoint down, bad catalog)."""


class GlossaryError(SchemaSeekError):
    """A glossary file is malformed; the message names the file and the entry."""


class EmbeddingError(SchemaSeekError):
    """The embedding provider failed (model missing, runtime error, wrong dimensions)."""


class SnapshotError(SchemaSeekError):
    """A snapshot generation is missing, partial, corrupt or incompatible."""


class StaleTokenError(SnapshotError):
    """A save carried a fencing token older than one the store has seen: another replica
    took over the build lease, so this writer's generation is refused."""


class CoordinationError(SchemaSeekError):
    """The coordination service (Redis) cannot be reached or answered nonsense."""


class UnknownSourceError(SchemaSeekError, LookupError):
    """No source of that name is served; the message lists the ones that are."""


class DeadlineExceededError(SchemaSeekError, TimeoutError):
    """The work ran past its deadline (the caller's, or the server's maximum)."""
