"""Fencing tokens, checked by the store side: a writer whose build lease was taken over cannot
publish a generation afterwards, whatever Redis said to it.

A replica that obtains the build lease of a source gets a token larger than every token given
before (:mod:`schemaseek.cluster`) and, before it does any work, *registers* it with the store:
``fences/<source>.json`` records the highest token registered. A save that carries a token
checks, under the store's lock and right before the manifest that makes the generation
visible, that no higher token was registered; otherwise the generation is dropped and
:class:`~schemaseek.errors.StaleTokenError` raised. On a directory store (local or a shared
mount with working ``flock``) registering and committing are mutually exclusive, so the check
is exact; on S3 they are separate requests, and a save racing a registration within the same
instant can still land (the announcement in Redis, compared atomically there, still refuses
it, so no replica is told to serve it).
"""

from __future__ import annotations

import json
import logging

from schemaseek.errors import SnapshotError, StaleTokenError
from schemaseek.snapshots.store import SnapshotStore

__all__ = ["FENCES", "Fence", "StaleTokenError"]

logger = logging.getLogger(__name__)

FENCES = "fences"


class Fence:
    """The highest registered token of each source in ``store``."""

    def __init__(self, store: SnapshotStore) -> None:
        self.store = store

    @staticmethod
    def key(folder: str) -> str:
        """The store key of a source's fence record (``folder``: its path-safe name)."""
        return f"{FENCES}/{folder}.json"

    def highest(self, folder: str) -> int:
        """The highest token registered for the source (0: none)."""
        try:
            raw = bytes(self.store.read(self.key(folder)))
        except FileNotFoundError:
            return 0
        try:
            return int(json.loads(raw)["token"])
        except (ValueError, KeyError, TypeError) as exc:
            raise SnapshotError(f"fence record {self.key(folder)} is malformed: {exc!r}") from None

    def register(self, folder: str, token: int) -> int:
        """Record ``token`` unless a higher one is recorded; returns the highest afterwards.
        Raises :class:`StaleTokenError` when ``token`` is lower than the recorded one."""
        with self.store.exclusive(self.key(folder)):
            highest = self.highest(folder)
            if token < highest:
                raise StaleTokenError(f"fencing token {token} is older than {highest}")
            if token > highest:
                self.store.put(self.key(folder), json.dumps({"token": token}).encode())
        return max(token, highest)

    def check(self, folder: str, token: int) -> None:
        """Raise :class:`StaleTokenError` when a token higher than ``token`` is registered
        (call it under :meth:`SnapshotStore.exclusive` of :meth:`key`)."""
        highest = self.highest(folder)
        if token < highest:
            raise StaleTokenError(
                f"refusing a generation saved with fencing token {token}: the store has seen "
                f"token {highest} (another replica took over the build lease)"
            )
