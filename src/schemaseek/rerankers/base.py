"""The reranker protocol and the ordering helper the rerankers share.

A reranker re-scores the fused candidates of one question jointly with the question and returns
``(id, score)`` pairs, best first. The pipeline calls it on the fused, filtered candidates
(``limit × over_fetch`` of them); any exception it raises leaves the fused order in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from schemaseek.documents import Document

Ranked = list[tuple[str, float]]
"""``(document id, score)`` pairs, best first."""

TAIL_STEP = 1e-3
"""Score gap between consecutive candidates left after the reranked head (fused order)."""


class Reranker(Protocol):
    """Re-scores fused candidates jointly with the question; returns ``(id, score)`` best first.

    ``fused`` are the candidates' fused scores, in the same order, when the caller has them; a
    reranker may mix them into its own scores or ignore them.
    """

    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked: ...


def reorder(
    candidates: Sequence[Document],
    scores: Sequence[float],
    tail: Sequence[float] | None = None,
) -> Ranked:
    """Sort the first ``len(scores)`` candidates by score, best first (ties keep the fused
    order), then append the remaining candidates in fused order, scored below all of them:
    ``tail`` (their scores on the head's scale, when known) capped under the head's lowest
    score, else steps of :data:`TAIL_STEP` under it."""
    head = len(scores)
    if head > len(candidates):
        raise ValueError(f"{head} scores for {len(candidates)} candidates")
    order = sorted(range(head), key=lambda i: -scores[i])
    ranked: Ranked = [(candidates[i].id, float(scores[i])) for i in order]
    floor = min(scores) if head else 0.0
    for step, doc in enumerate(candidates[head:], start=1):
        below = floor - TAIL_STEP * step
        known = tail[step - 1] if tail is not None and step <= len(tail) else None
        ranked.append((doc.id, below if known is None else min(float(known), below)))
    return ranked


def head_size(candidates: Sequence[Document], max_candidates: int | None) -> int:
    """How many leading candidates a reranker scores: all, or at most ``max_candidates``."""
    if max_candidates is None:
        return len(candidates)
    return min(len(candidates), max_candidates)
