"""Keeps a build lease alive while its holder works: renews it every third of its TTL.

When a renewal finds the lease gone (it expired and may have been taken over) or the
coordination service has been unreachable for a whole TTL, the lease is marked ``lost``; the
holder then does not announce what it built, and its save is refused by the store when a newer
token was registered meanwhile (:mod:`schemaseek.snapshots.fencing`).
"""

from __future__ import annotations

import logging
import threading
import time

from schemaseek.cluster.coordinator import Coordinator, Lease
from schemaseek.errors import CoordinationError

__all__ = ["LeaseKeeper"]

logger = logging.getLogger(__name__)


class LeaseKeeper:
    """Renews ``lease`` on a daemon thread until :meth:`stop`."""

    def __init__(self, coordinator: Coordinator, lease: Lease) -> None:
        self.coordinator = coordinator
        self.lease = lease
        self.interval_s = max(0.05, coordinator.lease_ttl_s / 3.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"schemaseek-lease-{lease.source}", daemon=True
        )

    def start(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(self.interval_s * 2 + 1.0)

    def _run(self) -> None:
        lease = self.lease
        renewed = time.monotonic()
        while not self._stop.wait(self.interval_s):
            try:
                if self.coordinator.renew(lease):
                    renewed = time.monotonic()
                    continue
                reason = "it expired"
            except CoordinationError as exc:
                if time.monotonic() - renewed < self.coordinator.lease_ttl_s:
                    continue
                reason = str(exc)
            logger.warning(
                "lost the build lease of %r (token %d): %s", lease.source, lease.token, reason
            )
            lease.lost.set()
            return
