"""What replicas coordinate through, independent of Redis: leases, announcements, progress.

A :class:`Coordinator` gives, per source, one build lease at a time with a fencing token larger
than any given before (:class:`Lease`), keeps the active generation of each source and
embedding fingerprint (:class:`Announcement`, for late joiners) and fans messages out to every
replica (``announce``, ``progress``, and ``reconnected`` after an outage). Every call raises
:class:`~schemaseek.errors.CoordinationError` when the service cannot be reached.

Only coordination state goes through it: ids, tokens, counters, phases. Never schema
metadata, documents, vectors or secrets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from schemaseek.errors import CoordinationError

__all__ = ["Announcement", "CoordinationError", "Coordinator", "Lease", "Listener", "Message"]

#: A message as published: ``{"type": ..., "source": ..., ...}`` (strings and numbers only).
Message = dict[str, Any]
#: Called on the coordinator's listening thread with each message for a source.
Listener = Callable[[Message], None]


@dataclass(frozen=True, slots=True)
class Announcement:
    """The generation every replica of ``source`` (under ``fingerprint``) should serve."""

    source: str
    fingerprint: str
    generation: str
    token: int
    holder: str
    unix_time: float


@dataclass(slots=True)
class Lease:
    """The build lease of one source, held by ``holder`` with fencing ``token``."""

    source: str
    token: int
    holder: str
    lost: threading.Event = field(default_factory=threading.Event)

    @property
    def value(self) -> str:
        """What the lease key holds while this lease is current."""
        return f"{self.holder}|{self.token}"


class Coordinator(Protocol):
    """See the module docstring; :class:`~schemaseek.cluster.redis_coordinator.RedisCoordinator`
    is the implementation."""

    @property
    def replica_id(self) -> str:
        """This process's name in leases and progress."""
        ...

    @property
    def lease_ttl_s(self) -> float: ...

    @property
    def healthy(self) -> bool:
        """Whether the last call (or the listener's last attempt) reached the service."""
        ...

    @property
    def description(self) -> str:
        """Where the service is, for logs (no credentials)."""
        ...

    def try_acquire(self, source: str, min_token: int = 0) -> Lease | None:
        """The build lease of ``source`` when it is free, with a token above ``min_token``
        and every token given before; None when another replica holds it."""
        ...

    def renew(self, lease: Lease) -> bool:
        """Extend ``lease`` by the TTL; False when it is no longer held (it expired)."""
        ...

    def release(self, lease: Lease) -> None:
        """Give ``lease`` back (nothing happens when it is no longer held)."""
        ...

    def announce(self, source: str, fingerprint: str, generation: str, token: int) -> bool:
        """Make ``generation`` the active one and tell every replica; False (and nothing
        happens) when a newer token has been given since ``token``."""
        ...

    def active(self, source: str, fingerprint: str) -> Announcement | None:
        """The announced generation, for a replica that joins late."""
        ...

    def report_progress(self, source: str, token: int, phase: str, done: int, total: int) -> None:
        """Tell every replica how the build of ``source`` goes."""
        ...

    def listen(self, source: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with each message about ``source``; returns the unsubscribe."""
        ...

    def close(self) -> None: ...


def check_token(value: Any) -> int:
    """A token from the service as an int; :class:`CoordinationError` when it is not one."""
    try:
        token = int(value)
    except (TypeError, ValueError):
        raise CoordinationError(
            f"the coordination service returned a bad token {value!r}"
        ) from None
    if token <= 0:
        raise CoordinationError(f"the coordination service returned a bad token {token}")
    return token
