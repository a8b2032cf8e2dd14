"""Replicas that share one snapshot store and coordinate through Redis (spec 004, "Redis").

Per source, one replica at a time holds the build lease (TTL, renewed while it works) with a
fencing token no earlier holder had; it alone fetches, embeds and saves, and the store refuses a
save whose token is older than one registered since (:mod:`schemaseek.snapshots.fencing`). It
announces the generation it saved; the other replicas load it from the store. Redis holds only
coordination state: lease holders, tokens, active generation ids, progress.

* :mod:`~schemaseek.cluster.coordinator` — the protocol, leases and announcements;
* :mod:`~schemaseek.cluster.redis_coordinator` — on Redis (extra ``redis``);
* :mod:`~schemaseek.cluster.lease` — renewal while a build runs;
* :mod:`~schemaseek.cluster.replica` — one source's serving unit on a replica.
"""

from __future__ import annotations

from schemaseek.cluster.coordinator import Announcement, Coordinator, Lease
from schemaseek.cluster.redis_coordinator import RedisCoordinator
from schemaseek.cluster.replica import ReplicaUnit

__all__ = ["Announcement", "Coordinator", "Lease", "RedisCoordinator", "ReplicaUnit"]
