"""Score fusion over N named ranked lists: weighted reciprocal rank fusion and weighted sum.

Pure functions, no state. A signal is a name, a weight and a ranked list of ``(id, score)``
pairs, best first. Ranks are 1-based.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

DEFAULT_RRF_K = 25.0


@dataclass(frozen=True, slots=True)
class NamedSignal:
    """One signal's ranked list. ``entries`` are ``(id, score)`` pairs, best first.

    ``scaled`` marks scores that are already on a common 0-1 scale (a share of the best
    candidate's score); :func:`weighted_sum` uses them as they are instead of min-max
    normalising them, so a weak list does not count as much as a strong one. ``min_span``
    widens the min-max range to at least that much below the best score, so that differences
    smaller than it are not stretched to the whole scale.
    """

    name: str
    entries: Sequence[tuple[str, float]]
    weight: float = 1.0
    scaled: bool = False
    min_span: float = 0.0


def reciprocal_rank_fusion(
    signals: Sequence[NamedSignal], k: float = DEFAULT_RRF_K
) -> dict[str, float]:
    """``score(d) = Σ_i w_i / (k + rank_i(d))`` over the signals that ranked ``d``.

    ``k`` must be positive; a signal with weight 0 contributes nothing. An id listed twice in
    one signal counts once, at its best rank.
    """
    if k <= 0:
        raise ValueError(f"RRF k must be positive, got {k}")
    fused: dict[str, float] = {}
    for signal in signals:
        if signal.weight == 0:
            continue
        seen: set[str] = set()
        for rank, (doc_id, _score) in enumerate(signal.entries, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            fused[doc_id] = fused.get(doc_id, 0.0) + signal.weight / (k + rank)
    return fused


def weighted_sum(signals: Sequence[NamedSignal], window: int | None = None) -> dict[str, float]:
    """``score(d) = Σ_i w_i · norm_i(d)`` with each signal's scores min-max normalised to [0, 1]
    (``scaled`` signals: taken as they are; the range at least ``min_span`` wide).

    ``window``: the range runs from the best score to the ``window``-th best, and scores below
    it count 0, so that how deep a signal was asked to go (a deeper page) does not move the
    scores of its leading entries. A signal whose scores are all equal maps every listed id to
    1.0. Ids a signal did not list get 0 from it.
    """
    fused: dict[str, float] = {}
    for signal in signals:
        if signal.weight == 0 or not signal.entries:
            continue
        best: dict[str, float] = {}
        for doc_id, score in signal.entries:
            if doc_id not in best or score > best[doc_id]:
                best[doc_id] = score
        if signal.scaled:
            low, high = 0.0, 1.0
        else:
            ordered = sorted(best.values(), reverse=True)
            high = ordered[0]
            low = ordered[min(len(ordered), window or len(ordered)) - 1]
        low = min(low, high - signal.min_span)
        span = high - low
        for doc_id, score in best.items():
            norm = 1.0 if span == 0 else max(0.0, (score - low) / span)
            fused[doc_id] = fused.get(doc_id, 0.0) + signal.weight * norm
    return fused


def top_k(
    scores: Mapping[str, float], k: int, after: tuple[float, str] | None = None
) -> list[tuple[str, float]]:
    """The ``k`` best ``(id, score)`` pairs, by score descending then id ascending.

    ``after`` is a keyset cursor: the ``(score, id)`` of the last item of the previous page;
    only items strictly after it in that order are returned.
    """
    if k <= 0:
        return []
    items = scores.items()
    if after is not None:
        last_score, last_id = after
        items = {
            i: s for i, s in items if s < last_score or (s == last_score and i > last_id)
        }.items()
    best = heapq.nsmallest(k, items, key=lambda item: (-item[1], item[0]))
    return [(doc_id, score) for doc_id, score in best]
