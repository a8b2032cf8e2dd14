"""Graceful shutdown on SIGTERM/SIGINT (spec 001 "Graceful shutdown").

On the first signal, :class:`GracefulShutdown` drains on a helper thread: it stops every
poller from starting another tick, destroys every engine (cancelling and awaiting their
in-flight work, which also ends a tick waiting on a refresh), waits for the pollers, then runs
the extra ``closers`` (servers, providers). The main thread's :meth:`GracefulShutdown.wait` returns
once the drain is done. If it has not finished after ``timeout_s``, or a second signal arrives,
the process is ended at once with ``os._exit(forced_exit_code)``.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Protocol

__all__ = ["GracefulShutdown"]

logger = logging.getLogger(__name__)

FORCED_EXIT_CODE = 70


class _Stoppable(Protocol):
    def stop(self, timeout: float | None = None) -> bool: ...


class _Destroyable(Protocol):
    def destroy(self, timeout: float | None = None) -> bool: ...


class GracefulShutdown:
    """Stops pollers, destroys engines and runs closers when asked or signalled.

    Args:
        engines: objects with ``destroy(timeout)`` (:class:`~schemaseek.engine.SourceEngine`).
        pollers: objects with ``stop(timeout)`` (:class:`~schemaseek.engine.Poller`).
        closers: callables run last, in order (errors are logged).
        timeout_s: how long the drain may take before the process is forced out.
        forced_exit_code: the exit status of a forced exit.
        exit: the function that ends the process (``os._exit``; injectable for tests).
    """

    def __init__(
        self,
        engines: Iterable[_Destroyable] = (),
        pollers: Iterable[_Stoppable] = (),
        closers: Iterable[Callable[[], object]] = (),
        *,
        timeout_s: float = 10.0,
        forced_exit_code: int = FORCED_EXIT_CODE,
        exit: Callable[[int], object] = os._exit,
    ) -> None:
        self.engines = list(engines)
        self.pollers = list(pollers)
        self.closers = list(closers)
        self.timeout_s = timeout_s
        self.forced_exit_code = forced_exit_code
        self._exit = exit
        self._started = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self.drained = False

    def install(self, signals: Iterable[int] = (signal.SIGTERM, signal.SIGINT)) -> None:
        """Handle ``signals`` (call from the main thread)."""
        for number in signals:
            signal.signal(number, self._on_signal)

    def _on_signal(self, number: int, _frame: FrameType | None) -> None:
        if self._started.is_set():
            logger.error("second signal %d during shutdown: exiting now", number)
            self._exit(self.forced_exit_code)
            return
        logger.warning("signal %d: shutting down (at most %.1f s)", number, self.timeout_s)
        self.start()

    def start(self) -> None:
        """Begin draining in the background (idempotent) and arm the forced-exit timer."""
        with self._lock:
            if self._started.is_set():
                return
            self._started.set()
        threading.Thread(target=self._drain, name="schemaseek-shutdown", daemon=True).start()
        threading.Thread(target=self._watchdog, name="schemaseek-watchdog", daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the drain has finished; True when it has."""
        return self._done.wait(timeout)

    def shutdown(self) -> bool:
        """Drain now, in this thread; True when everything ended within the timeout."""
        self._started.set()
        self._drain()
        return self.drained

    def _drain(self) -> None:
        budget = self.timeout_s
        ok = True
        try:
            for poller in self.pollers:  # no new ticks; a running one ends with its engine
                poller.stop(0)
            outcomes: list[bool] = []
            threads = [
                threading.Thread(target=self._destroy, args=(e, budget, outcomes), daemon=True)
                for e in self.engines
            ]
            for thread in threads:  # engines drain in parallel
                thread.start()
            for thread in threads:
                thread.join()
            ok &= all(outcomes)
            for poller in self.pollers:
                ok &= bool(poller.stop(budget))
            for closer in self.closers:
                try:
                    closer()
                except Exception as exc:
                    ok = False
                    logger.warning("shutdown step failed: %s", exc)
        finally:
            self.drained = ok
            self._done.set()
        logger.info("shutdown complete%s", "" if ok else " (some work did not finish)")

    @staticmethod
    def _destroy(engine: _Destroyable, budget: float, results: list[bool]) -> None:
        try:
            results.append(bool(engine.destroy(budget)))
        except Exception as exc:
            logger.warning("destroying an engine failed: %s", exc)
            results.append(False)

    def _watchdog(self) -> None:
        if not self._done.wait(self.timeout_s):
            logger.error("shutdown did not finish within %.1f s: forcing exit", self.timeout_s)
            self._exit(self.forced_exit_code)
