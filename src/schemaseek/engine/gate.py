"""Changes that several engines commit at one instant, and searches that never see half of one.

A glossary update touches every engine: each re-derives its documents' glossary context (and
embeds what changed) and installs a new term matcher. Engines do that on their own workers at
their own pace; a search running in between would see some engines with the old glossary and
some with the new. Two pieces prevent that:

* :class:`ReadWriteLock`: searches hold it shared for their whole length; a commit holds it
  alone. Writers go first: once a commit waits, new searches wait for it (a commit is short:
  installing prepared state, no embedding).
* :class:`CommitGate`: ``parties`` engines each prepare their part (fetch, diff, embed), then
  enter the gate with their :class:`Party`. When the last one arrives the write lock is taken;
  each commits inside the gate; the lock is released when the last one has left. A party that
  cannot prepare calls :meth:`Party.abort`: the gate breaks, nobody commits, and the others
  get :class:`GateAborted` (their engines keep serving what they served).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from types import TracebackType

from schemaseek.errors import DeadlineExceededError, SchemaSeekError

__all__ = ["CommitGate", "GateAborted", "Party", "ReadWriteLock"]


class GateAborted(SchemaSeekError):
    """Another party of the change could not prepare its part: nothing was committed."""


class ReadWriteLock:
    """Many readers or one writer; a waiting writer keeps new readers out."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._waiting = 0

    @contextlib.contextmanager
    def reading(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the lock shared; :class:`DeadlineExceededError` after ``timeout`` seconds."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._writer or self._waiting:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    raise DeadlineExceededError("waited too long for a commit to finish")
                self._cond.wait(left)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    def acquire_write(self) -> None:
        with self._cond:
            self._waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            finally:
                self._waiting -= 1
            self._writer = True

    def release_write(self) -> None:
        """Release the write lock (from any thread: the gate's last party does)."""
        with self._cond:
            self._writer = False
            self._cond.notify_all()


class CommitGate:
    """See the module docstring; ``timeout`` bounds each wait at the gate."""

    def __init__(self, parties: int, lock: ReadWriteLock, timeout: float = 300.0) -> None:
        self.lock = lock
        self.timeout = timeout
        self._arrive = threading.Barrier(parties, action=lock.acquire_write, timeout=timeout)
        self._leave = threading.Barrier(parties, action=lock.release_write, timeout=timeout)

    def party(self) -> Party:
        """The ticket of one engine (one per party)."""
        return Party(self)


class Party:
    """One engine's place at a :class:`CommitGate`: ``with party:`` commits inside the gate."""

    def __init__(self, gate: CommitGate) -> None:
        self.gate = gate
        self.entered = False

    def __enter__(self) -> Party:
        try:
            self.gate._arrive.wait()
        except threading.BrokenBarrierError:
            raise GateAborted(
                "another engine could not prepare its part; nothing changed"
            ) from None
        self.entered = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.gate._leave.wait()
        except threading.BrokenBarrierError:  # a party never left: do not hold searches off
            self.gate.lock.release_write()

    def abort(self) -> None:
        """Break the gate (this party could not prepare); a no-op once it has entered."""
        if not self.entered:
            self.gate._arrive.abort()
