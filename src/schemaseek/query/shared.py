"""What the indexes answering one question share: one deadline, whether the question is an
exact identifier in any of them, and the question's vector.

A federated search (:func:`schemaseek.federation.federated_search`) makes one
:class:`SharedQuery` and hands it to every index it asks:

* **one deadline** for the whole search (:class:`Deadline`): the caller's (a Connect timeout
  header, a gRPC deadline) capped by the server's maximum. Members are not asked once it has
  passed, and the query embedding waits at most :data:`EMBEDDING_SHARE` of what is left of
  it (the lexical signals need the rest);
* **one query embedding per model**: :meth:`SharedQuery.vector` embeds the question once per
  embedding fingerprint (provider, model, dimensions, prefix) and hands the same vector to
  every index of that fingerprint; a failure (or the deadline) is remembered too, so the next
  index degrades at once instead of trying again;
* **pins skip embedding everywhere**: when the question is an exact identifier in one index
  (``pinned``), no index embeds it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures import TimeoutError as FutureTimeout

from schemaseek.embedding.base import EmbeddingProvider, Vectors
from schemaseek.errors import DeadlineExceededError, EmbeddingError
from schemaseek.snapshots.fingerprint import fingerprint_of

__all__ = ["EMBEDDING_SHARE", "Deadline", "SharedQuery"]

EMBEDDING_SHARE = 0.75


class Deadline:
    """A point in (monotonic) time by which the work must be done; ``None`` seconds: never."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.at = None if seconds is None else clock() + max(0.0, seconds)

    @classmethod
    def within(cls, *budgets: float | None) -> Deadline:
        """The earliest of ``budgets`` (seconds from now; ``None`` ones are ignored)."""
        given = [b for b in budgets if b is not None]
        return cls(min(given) if given else None)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a deadline."""
        return None if self.at is None else max(0.0, self.at - self._clock())

    @property
    def expired(self) -> bool:
        return self.at is not None and self._clock() >= self.at

    def check(self, what: str = "the search") -> None:
        """Raise :class:`DeadlineExceededError` once the deadline has passed."""
        if self.expired:
            raise DeadlineExceededError(f"{what} ran past its deadline")


class SharedQuery:
    """See the module docstring. ``executor`` runs query embeddings so that the wait for one
    can end at the deadline (without one, the provider's own timeout is the only bound)."""

    def __init__(
        self,
        query: str,
        *,
        deadline: Deadline | None = None,
        executor: Executor | None = None,
        pinned: bool = False,
    ) -> None:
        self.query = query
        self.deadline = deadline or Deadline(None)
        self.executor = executor
        self.pinned = pinned
        self._vectors: dict[str, Vectors | BaseException] = {}
        self._lock = threading.Lock()
        self.embeddings = 0
        """How many query embeddings this search asked a provider for."""

    def vector(self, embedder: EmbeddingProvider) -> Vectors:
        """The question's vector in ``embedder``'s space: computed by the first index of that
        fingerprint, reused by the others (a failure is re-raised to them without a retry)."""
        key = fingerprint_of(embedder).digest
        with self._lock:
            known = self._vectors.get(key)
            if known is None:
                try:
                    known = self._embed(embedder)
                except Exception as exc:
                    known = exc
                self._vectors[key] = known
        if isinstance(known, BaseException):
            raise known
        return known

    def _embed(self, embedder: EmbeddingProvider) -> Vectors:
        self.embeddings += 1
        left = self.deadline.remaining()
        if left is None or self.executor is None:
            return embedder.embed_query(self.query)
        left *= EMBEDDING_SHARE
        if left <= 0:
            raise EmbeddingError("no time was left for the query embedding")
        future = self.executor.submit(embedder.embed_query, self.query)
        try:
            return future.result(timeout=left)
        except FutureTimeout:
            future.cancel()
            raise EmbeddingError(
                f"the query embedding did not finish within the search deadline ({left:.3f} s)"
            ) from None
