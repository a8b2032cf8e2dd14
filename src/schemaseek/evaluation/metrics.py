"""Ranking metrics on (ranked ids, gold ids), and their mean over a question set.

Every function takes the ranked ids best first and the gold ids as any collection (duplicates in
either count once). Gold must be non-empty for the per-question functions; the aggregator skips
questions without gold and counts them.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "METRIC_NAMES",
    "Aggregate",
    "aggregate",
    "all_gold_at",
    "hit_at",
    "ndcg_at",
    "question_metrics",
    "recall_at",
    "reciprocal_rank",
]

METRIC_NAMES: tuple[str, ...] = (
    "recall@5",
    "recall@10",
    "recall@20",
    "all_gold@10",
    "hit@1",
    "hit@5",
    "hit@10",
    "mrr",
    "ndcg@10",
)


def _top(ranked: Sequence[str], k: int) -> list[str]:
    """The first ``k`` distinct ids of ``ranked``."""
    out: list[str] = []
    seen: set[str] = set()
    for doc_id in ranked:
        if len(out) >= k:
            break
        if doc_id not in seen:
            seen.add(doc_id)
            out.append(doc_id)
    return out


def _gold_set(gold: Collection[str]) -> set[str]:
    found = set(gold)
    if not found:
        raise ValueError("gold is empty")
    return found


def recall_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the gold ids found in the top ``k``."""
    wanted = _gold_set(gold)
    return len(wanted.intersection(_top(ranked, k))) / len(wanted)


def all_gold_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 when every gold id is in the top ``k``, else 0.0."""
    wanted = _gold_set(gold)
    return 1.0 if wanted <= set(_top(ranked, k)) else 0.0


def hit_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 when any gold id is in the top ``k``, else 0.0."""
    wanted = _gold_set(gold)
    return 1.0 if wanted.intersection(_top(ranked, k)) else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str]) -> float:
    """1 / the rank of the first gold id (1-based); 0.0 when none is ranked."""
    wanted = _gold_set(gold)
    for rank, doc_id in enumerate(_top(ranked, len(ranked)), start=1):
        if doc_id in wanted:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float:
    """NDCG@k with binary gains; the ideal ranking puts min(|gold|, k) gold ids first."""
    wanted = _gold_set(gold)
    dcg = sum(
        1.0 / math.log2(rank + 1)
        for rank, doc_id in enumerate(_top(ranked, k), start=1)
        if doc_id in wanted
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


def question_metrics(ranked: Sequence[str], gold: Collection[str]) -> dict[str, float]:
    """Every metric of :data:`METRIC_NAMES` for one question (gold must be non-empty)."""
    return {
        "recall@5": recall_at(ranked, gold, 5),
        "recall@10": recall_at(ranked, gold, 10),
        "recall@20": recall_at(ranked, gold, 20),
        "all_gold@10": all_gold_at(ranked, gold, 10),
        "hit@1": hit_at(ranked, gold, 1),
        "hit@5": hit_at(ranked, gold, 5),
        "hit@10": hit_at(ranked, gold, 10),
        "mrr": reciprocal_rank(ranked, gold),
        "ndcg@10": ndcg_at(ranked, gold, 10),
    }


@dataclass(frozen=True, slots=True)
class Aggregate:
    """Mean of each metric over the scored questions; ``skipped`` had no gold."""

    metrics: dict[str, float]
    scored: int
    skipped: int


def aggregate(results: Iterable[tuple[Sequence[str], Collection[str]]]) -> Aggregate:
    """Mean of every metric over ``(ranked, gold)`` pairs; pairs with empty gold are skipped.

    With nothing scored, every mean is 0.0.
    """
    totals = dict.fromkeys(METRIC_NAMES, 0.0)
    scored = skipped = 0
    for ranked, gold in results:
        if not gold:
            skipped += 1
            continue
        scored += 1
        for name, value in question_metrics(ranked, gold).items():
            totals[name] += value
    means = {name: (total / scored if scored else 0.0) for name, total in totals.items()}
    return Aggregate(means, scored, skipped)
