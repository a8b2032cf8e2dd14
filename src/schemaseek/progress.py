"""Progress of long steps (embedding, index builds, snapshots, evaluation) as log lines.

Every long step reports through one callback shape, ``progress(stage, done, total)``
(:data:`StageProgress`): the index build, the engines (embedding, snapshot load and save), the
evaluation runner. The command line shows it as a rich progress bar on a terminal; everywhere
else — stderr piped to a file or a CI log, an MCP host, the network service's JSON logs — a
:class:`LogProgress` turns it into periodic lines::

    embedding: 0/9,271
    embedding: 1,216/9,271 (13%) after 10 s, about 66 s left
    embedding: 9,271/9,271 (100%) in 78.4 s

A stage that is complete at its first report (``done == total``) prints one line; otherwise
the first report prints a line, then at most one line every ``interval_s`` seconds, and the
last report (``done >= total``) one more. A finished stage reported again from the start runs
again (each evaluation mode builds its own index).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DEFAULT_INTERVAL_S", "LogProgress", "StageProgress"]

#: ``progress(stage, done, total)``
StageProgress = Callable[[str, int, int], None]

DEFAULT_INTERVAL_S = 10.0


@dataclass(slots=True)
class _Stage:
    started: float
    last: float
    finished: bool = False


class LogProgress:
    """A :data:`StageProgress` that emits a line (through ``emit``) per stage start, at most
    every ``interval_s`` seconds while it runs, and when it ends. Thread-safe."""

    def __init__(
        self,
        emit: Callable[[str], None],
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.emit = emit
        self.interval_s = interval_s
        self._clock = clock
        self._stages: dict[str, _Stage] = {}
        self._lock = threading.Lock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        line = self._line(stage, done, total)
        if line is not None:
            self.emit(line)

    def _line(self, stage: str, done: int, total: int) -> str | None:
        now = self._clock()
        finished = done >= total
        with self._lock:
            state = self._stages.get(stage)
            if state is None or (state.finished and not finished):
                self._stages[stage] = _Stage(now, now, finished)
                return f"{stage}: {done:,}/{total:,}"
            if state.finished or (not finished and now - state.last < self.interval_s):
                return None
            state.last, state.finished = now, finished
            elapsed = now - state.started
        share = f" ({100 * done // total}%)" if total > 0 else ""
        if finished:
            return f"{stage}: {done:,}/{total:,}{share} in {elapsed:.1f} s"
        left = ""
        if done > 0:
            left = f", about {elapsed * (total - done) / done:.0f} s left"
        return f"{stage}: {done:,}/{total:,}{share} after {elapsed:.0f} s{left}"
