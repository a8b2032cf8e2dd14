"""Spec 004's weak-hit cut for the vector signal (``SearchSettings.weak_hit_cut``).

A semantic hit stays in the vector signal only when its cosine reaches
``max(0.25, p99 + 0.02)`` of the query's background scores (a random sample of the index,
its top eight excluded) and is within 0.10 of the best hit.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemaseek.embedding.base import Vectors
from schemaseek.signals.vector import VectorIndex

__all__ = ["cut_weak_hits", "weak_hit_threshold"]


def weak_hit_threshold(background: Sequence[float], best: float) -> float:
    """The floor a semantic hit must reach (module docstring)."""
    ordered = sorted(background, reverse=True)[8:]
    p99 = ordered[int(0.01 * (len(ordered) - 1))] if ordered else 0.0
    return max(0.25, p99 + 0.02, best - 0.10)


def cut_weak_hits(
    vectors: VectorIndex | None,
    query_vector: Vectors,
    entries: list[tuple[str, float]],
    sample: int,
) -> list[tuple[str, float]]:
    """``entries`` (best first) without the hits below :func:`weak_hit_threshold`."""
    if not entries or vectors is None:
        return entries
    background = vectors.sample_scores(query_vector, sample)
    floor = weak_hit_threshold(background.tolist(), entries[0][1])
    return [(d, score) for d, score in entries if score >= floor]
