"""A polling helper: the caller's timer for :meth:`SourceEngine.refresh` (the engine owns none).

Each wait is ``interval_s`` times a random factor in ``[1 - jitter, 1 + jitter]``, so many
replicas do not refresh in lock step. A failing action is logged and retried at the next tick.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable

from schemaseek.errors import ConfigError

__all__ = ["Poller"]

logger = logging.getLogger(__name__)


class Poller:
    """Runs ``action`` every ``interval_s`` (± ``jitter``) on a daemon thread until stopped.

    Args:
        action: what to run; exceptions are logged, never propagated.
        interval_s: the mean wait between runs.
        jitter: relative spread of the wait (0.1 = ±10 %).
        rng: the random source (seed it in tests).
        name: the thread's name.
    """

    def __init__(
        self,
        action: Callable[[], object],
        interval_s: float,
        *,
        jitter: float = 0.1,
        rng: random.Random | None = None,
        name: str = "schemaseek-poller",
    ) -> None:
        if interval_s <= 0 or not 0 <= jitter <= 1:
            raise ConfigError("poll interval must be > 0 and jitter within [0, 1]")
        self.action = action
        self.interval_s = interval_s
        self.jitter = jitter
        self._rng = rng or random.Random()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.runs = 0
        self.failures = 0

    def next_delay(self) -> float:
        """The next wait, jitter applied."""
        return self.interval_s * (1.0 + self._rng.uniform(-self.jitter, self.jitter))

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> Poller:
        """Start the thread (once); returns self."""
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> bool:
        """Stop after the current run; True when the thread ended within ``timeout``."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.wait(self.next_delay()):
            try:
                self.action()
            except Exception as exc:  # the next tick retries
                self.failures += 1
                logger.warning("scheduled refresh failed: %s; retrying at the next interval", exc)
            finally:
                self.runs += 1
