"""Tiered retention of generations (spec 001 "Snapshot Persistence" → Retention).

* younger than 1 hour: all;
* 1–24 hours: the newest of each clock hour (a valid one first);
* 1–7 days: the newest of each UTC day (a valid one first);
* older: none.

Whatever the tiers say, the newest ``min_valid`` *valid* generations are always kept, so a
previously good snapshot survives a bad refresh (spec 004 keeps at least two).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Candidate", "RetentionPolicy", "compute_retention"]

HOUR = 3600.0
DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """One generation as retention sees it."""

    generation: str
    created_unix: float
    valid: bool


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """The tier boundaries (seconds) and the floor of valid generations kept."""

    keep_all_s: float = HOUR
    hourly_s: float = DAY
    daily_s: float = 7 * DAY
    min_valid: int = 2


def compute_retention(
    candidates: Sequence[Candidate], now: float, policy: RetentionPolicy | None = None
) -> set[str]:
    """The generation ids to keep; every other candidate may be deleted."""
    policy = policy or RetentionPolicy()
    keep: set[str] = set()
    newest_in_bucket: dict[tuple[str, int], Candidate] = {}
    for item in candidates:
        age = now - item.created_unix
        if age < policy.keep_all_s:
            keep.add(item.generation)
            continue
        if age < policy.hourly_s:
            bucket = ("hour", int(item.created_unix // HOUR))
        elif age < policy.daily_s:
            bucket = ("day", int(item.created_unix // DAY))
        else:
            continue
        held = newest_in_bucket.get(bucket)
        if held is None or (item.valid, item.created_unix, item.generation) > (
            held.valid,
            held.created_unix,
            held.generation,
        ):
            newest_in_bucket[bucket] = item
    keep.update(item.generation for item in newest_in_bucket.values())
    valid = sorted(
        (c for c in candidates if c.valid),
        key=lambda c: (c.created_unix, c.generation),
        reverse=True,
    )
    keep.update(c.generation for c in valid[: policy.min_valid])
    return keep
