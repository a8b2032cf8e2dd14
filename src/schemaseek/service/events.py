"""The service's event bus: engine events fanned out to ``StreamEvents`` subscribers.

Publishers are any thread (engine workers, pollers, breaker listeners); subscribers are asyncio
tasks. Each subscriber has a bounded queue on its own loop; a subscriber that falls behind
loses its oldest events rather than slowing a publisher. The last ``keep`` events are kept for
replay. Messages and attributes are published with their URLs redacted (an engine's error may
quote an endpoint).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from schemaseek.sources.redact import redact_text

__all__ = ["EventBus", "ServiceEvent"]

QUEUE_SIZE = 1000


@dataclass(frozen=True, slots=True)
class ServiceEvent:
    """One event: what happened, to which source, when."""

    seq: int
    type: str
    source: str
    unix_time: float
    message: str
    attributes: dict[str, str] = field(default_factory=dict)


class _Subscriber:
    def __init__(self, loop: asyncio.AbstractEventLoop, types: frozenset[str]) -> None:
        self.loop = loop
        self.types = types
        self.queue: asyncio.Queue[ServiceEvent | None] = asyncio.Queue(QUEUE_SIZE)

    def offer(self, event: ServiceEvent | None) -> None:
        """Runs on the subscriber's loop."""
        if self.queue.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
        self.queue.put_nowait(event)


class EventBus:
    """Thread-safe publish, asyncio subscribe; see the module docstring."""

    def __init__(self, keep: int = 256) -> None:
        self._lock = threading.Lock()
        self._recent: deque[ServiceEvent] = deque(maxlen=keep)
        self._subscribers: list[_Subscriber] = []
        self._seq = itertools.count(1)
        self._closed = False

    def publish(self, type: str, source: str, message: str, **attributes: object) -> ServiceEvent:
        """Record an event and hand it to every subscriber that wants its type."""
        event = ServiceEvent(
            seq=next(self._seq),
            type=type,
            source=source,
            unix_time=time.time(),
            message=redact_text(message),
            attributes={k: redact_text(str(v)) for k, v in attributes.items() if v is not None},
        )
        with self._lock:
            self._recent.append(event)
            subscribers = list(self._subscribers)
        for sub in subscribers:
            if not sub.types or type in sub.types:
                self._deliver(sub, event)
        return event

    def recent(self) -> list[ServiceEvent]:
        """The events kept for replay, oldest first."""
        with self._lock:
            return list(self._recent)

    async def subscribe(
        self, types: Iterable[str] = (), *, replay: bool = False
    ) -> AsyncIterator[ServiceEvent]:
        """Events as they happen (after the kept ones with ``replay``), until :meth:`close`."""
        sub = _Subscriber(asyncio.get_running_loop(), frozenset(types))
        with self._lock:
            backlog = list(self._recent) if replay else []
            self._subscribers.append(sub)
            closed = self._closed
        try:
            for event in backlog:
                if not sub.types or event.type in sub.types:
                    yield event
            while not closed:
                item = await sub.queue.get()
                if item is None:
                    return
                yield item
        finally:
            with self._lock:
                if sub in self._subscribers:
                    self._subscribers.remove(sub)

    def close(self) -> None:
        """End every subscription (on shutdown)."""
        with self._lock:
            self._closed = True
            subscribers, self._subscribers = self._subscribers, []
        for sub in subscribers:
            self._deliver(sub, None)

    @staticmethod
    def _deliver(sub: _Subscriber, event: ServiceEvent | None) -> None:
        with contextlib.suppress(RuntimeError):  # the subscriber's loop is closed
            sub.loop.call_soon_threadsafe(sub.offer, event)
