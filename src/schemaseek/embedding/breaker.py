"""Circuit breakers around an embedding provider (spec 001 "Circuit breakers").

:class:`BreakerProvider` wraps ``embed`` and ``embed_query`` in two separate
:class:`CircuitBreaker` instances, so a failing bulk path does not stop query embeddings and
the other way round. A breaker is in one of three states:

* **closed** — calls pass; failures are counted by the configured strategy:

  - ``consecutive``: failures in a row (any success resets the count);
  - ``fixed``: failures within the current fixed window of ``window_s`` seconds (windows are
    aligned to the first failure after a reset and do not overlap);
  - ``rolling``: failures within the last ``window_s`` seconds (a sliding window).

  Reaching ``failure_threshold`` opens the circuit.
* **open** — calls fail fast with :class:`CircuitOpenError` (an
  :class:`~schemaseek.errors.EmbeddingError`) without reaching the provider, for
  ``cooldown_s`` seconds.
* **half-open** — after the cooldown, up to ``half_open_max_calls`` probe calls at a time reach
  the provider; ``success_threshold`` successes close the circuit, one failure reopens it.

The clock is injectable (monotonic seconds), so every transition is testable without sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, ProviderWrapper, Vectors
from schemaseek.errors import ConfigError, EmbeddingError

__all__ = [
    "BreakerConfig",
    "BreakerProvider",
    "BreakerState",
    "CircuitBreaker",
    "CircuitOpenError",
    "Strategy",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class BreakerState(StrEnum):
    """Where a circuit is."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Strategy(StrEnum):
    """How failures are counted while closed."""

    CONSECUTIVE = "consecutive"
    FIXED = "fixed"
    ROLLING = "rolling"


class CircuitOpenError(EmbeddingError):
    """The circuit is open (or its half-open probe slots are taken): the call was not made."""


@dataclass(frozen=True, slots=True)
class BreakerConfig:
    """Thresholds of one breaker; see the module docstring for their meaning."""

    strategy: Strategy = Strategy.ROLLING
    failure_threshold: int = 5
    window_s: float = 60.0
    cooldown_s: float = 30.0
    success_threshold: int = 1
    half_open_max_calls: int = 1

    def __post_init__(self) -> None:
        if self.failure_threshold < 1 or self.success_threshold < 1:
            raise ConfigError("breaker failure_threshold and success_threshold must be >= 1")
        if self.half_open_max_calls < 1:
            raise ConfigError("breaker half_open_max_calls must be >= 1")
        if self.window_s <= 0 or self.cooldown_s < 0:
            raise ConfigError("breaker window_s must be > 0 and cooldown_s >= 0")
        try:
            strategy = Strategy(self.strategy)
        except ValueError:
            valid = ", ".join(s.value for s in Strategy)
            raise ConfigError(f"unknown breaker strategy {self.strategy!r}; use {valid}") from None
        object.__setattr__(self, "strategy", strategy)  # accept the plain string too


#: ``listener(breaker_name, old_state, new_state)``
Listener = Callable[[str, BreakerState, BreakerState], None]


class CircuitBreaker:
    """One circuit (thread-safe). Use :meth:`call`, or :meth:`acquire` plus
    :meth:`record_success` / :meth:`record_failure` around a call made elsewhere."""

    def __init__(
        self,
        name: str,
        config: BreakerConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.config = config or BreakerConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._failures: deque[float] = deque()  # rolling: timestamps; others: counted below
        self._count = 0  # consecutive / fixed-window failures
        self._window_start = 0.0
        self._opened_at = 0.0
        self._successes = 0  # half-open successes
        self._probes = 0  # half-open calls in flight
        self._listeners: list[Listener] = []
        self._changes: list[tuple[BreakerState, BreakerState]] = []
        self.opened = 0
        """How many times the circuit has opened."""

    # -- state ----------------------------------------------------------------------------

    @property
    def state(self) -> BreakerState:
        """The current state (an open circuit whose cooldown has passed reads half-open)."""
        with self._lock:
            state = self._current_locked()
        self._flush()
        return state

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener`` after every state change (outside the breaker's lock)."""
        self._listeners.append(listener)

    def reset(self) -> None:
        """Close the circuit and forget every count."""
        with self._lock:
            self._move_locked(BreakerState.CLOSED)
            self._clear_locked()
        self._flush()

    # -- calls ----------------------------------------------------------------------------

    def call(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """Run ``fn`` through the circuit: fail fast while open, count the outcome."""
        self.acquire()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            # An interrupted call (KeyboardInterrupt, cancellation) says nothing about the
            # provider's health; only ordinary exceptions count as failures.
            if isinstance(exc, Exception):
                self.record_failure()
            else:
                self._release_probe()
            raise
        self.record_success()
        return result

    def acquire(self) -> None:
        """Ask to make one call; raises :class:`CircuitOpenError` when it must not be made."""
        error: CircuitOpenError | None = None
        with self._lock:
            state = self._current_locked()
            if state is BreakerState.OPEN:
                remaining = self._opened_at + self.config.cooldown_s - self._clock()
                error = CircuitOpenError(
                    f"circuit {self.name!r} is open after repeated embedding failures; "
                    f"retrying in {max(remaining, 0.0):.1f} s"
                )
            elif state is BreakerState.HALF_OPEN:
                if self._probes >= self.config.half_open_max_calls:
                    error = CircuitOpenError(f"circuit {self.name!r} is half-open; a probe runs")
                else:
                    self._probes += 1
        self._flush()
        if error is not None:
            raise error

    def record_success(self) -> None:
        """Count a successful call."""
        with self._lock:
            state = self._current_locked()
            if state is BreakerState.HALF_OPEN:
                self._probes = max(0, self._probes - 1)
                self._successes += 1
                if self._successes >= self.config.success_threshold:
                    self._move_locked(BreakerState.CLOSED)
                    self._clear_locked()
            elif state is BreakerState.CLOSED and self.config.strategy is Strategy.CONSECUTIVE:
                self._count = 0
        self._flush()

    def record_failure(self) -> None:
        """Count a failed call; may open the circuit."""
        opened = False
        with self._lock:
            state = self._current_locked()
            now = self._clock()
            if state is BreakerState.HALF_OPEN or (
                state is BreakerState.CLOSED and self._count_failure_locked(now)
            ):
                self._move_locked(BreakerState.OPEN)
                self._opened_at = now
                self._successes = self._probes = 0
                self.opened += 1
                opened = True
        if opened:
            logger.warning(
                "embedding circuit %r opened (%s strategy); failing fast for %.1f s",
                self.name,
                self.config.strategy.value,
                self.config.cooldown_s,
            )
        self._flush()

    # -- internals ------------------------------------------------------------------------

    def _release_probe(self) -> None:
        with self._lock:
            if self._state is BreakerState.HALF_OPEN:
                self._probes = max(0, self._probes - 1)

    def _current_locked(self) -> BreakerState:
        if (
            self._state is BreakerState.OPEN
            and self._clock() >= self._opened_at + self.config.cooldown_s
        ):
            self._move_locked(BreakerState.HALF_OPEN)
            self._successes = self._probes = 0
        return self._state

    def _count_failure_locked(self, now: float) -> bool:
        """Record a failure while closed; True when the threshold is reached."""
        config = self.config
        if config.strategy is Strategy.ROLLING:
            self._failures.append(now)
            while self._failures and self._failures[0] <= now - config.window_s:
                self._failures.popleft()
            return len(self._failures) >= config.failure_threshold
        window_over = self._count == 0 or now >= self._window_start + config.window_s
        if config.strategy is Strategy.FIXED and window_over:
            self._window_start = now
            self._count = 0
        self._count += 1
        return self._count >= config.failure_threshold

    def _move_locked(self, new: BreakerState) -> None:
        if new is not self._state:
            self._changes.append((self._state, new))
            self._state = new

    def _clear_locked(self) -> None:
        self._failures.clear()
        self._count = self._successes = self._probes = 0

    def _flush(self) -> None:
        """Tell listeners about the changes made under the lock, in order."""
        with self._lock:
            changes, self._changes = self._changes, []
        for old, new in changes:
            if new is BreakerState.CLOSED:
                logger.info("embedding circuit %r closed again", self.name)
            for listener in list(self._listeners):
                try:
                    listener(self.name, old, new)
                except Exception:  # a listener must never break the call path
                    logger.exception("circuit breaker listener failed")


class BreakerProvider(ProviderWrapper):
    """An :class:`~schemaseek.embedding.base.EmbeddingProvider` whose ``embed`` and
    ``embed_query`` each go through their own :class:`CircuitBreaker`."""

    def __init__(
        self,
        provider: EmbeddingProvider,
        config: BreakerConfig | None = None,
        *,
        query_config: BreakerConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(provider)
        self.embed_breaker = CircuitBreaker("embed", config, clock=clock)
        self.query_breaker = CircuitBreaker("embed_query", query_config or config, clock=clock)

    @property
    def open(self) -> bool:
        """Whether either circuit currently refuses calls (open, not yet half-open)."""
        return BreakerState.OPEN in (self.embed_breaker.state, self.query_breaker.state)

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Embed documents through the ``embed`` circuit."""
        return self.embed_breaker.call(self.provider.embed, texts, progress)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query through the ``embed_query`` circuit."""
        return self.query_breaker.call(self.provider.embed_query, text)
