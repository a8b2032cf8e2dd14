"""One labelled question's outcome: where its gold ranked, its metrics, what ranked instead.

The CLI's JUnit report (one test case per question), the workbench's eval page and the
glossary dry run all read questions through :func:`question_outcome`, so a "miss" means the
same everywhere: no gold id in the first :data:`MISS_K` results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.metrics import question_metrics

__all__ = ["MISS_K", "QuestionOutcome", "question_outcome"]

MISS_K = 10
INSTEAD = 5


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """How one question did: ``rank`` is the 1-based rank of its first gold id (None when
    no gold id was ranked); ``instead`` the ids ranked ahead of it (or the top ones on a miss).
    """

    id: str
    question: str
    gold: tuple[str, ...]
    rank: int | None
    metrics: dict[str, float]
    instead: tuple[str, ...]
    latency_ms: float = 0.0
    error: str | None = None
    gold_ranks: dict[str, int] = field(default_factory=dict)

    @property
    def missed(self) -> bool:
        """True when no gold id is in the first :data:`MISS_K` results."""
        return self.rank is None or self.rank > MISS_K

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "gold": list(self.gold),
            "rank": self.rank,
            "gold_ranks": dict(self.gold_ranks),
            "metrics": {k: round(v, 4) for k, v in self.metrics.items()},
            "instead": list(self.instead),
            "latency_ms": round(self.latency_ms, 3),
        }
        return out | ({"error": self.error} if self.error else {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionOutcome:
        return cls(
            id=str(data["id"]),
            question=str(data["question"]),
            gold=tuple(str(g) for g in data.get("gold") or ()),
            rank=int(data["rank"]) if data.get("rank") is not None else None,
            metrics={str(k): float(v) for k, v in (data.get("metrics") or {}).items()},
            instead=tuple(str(i) for i in data.get("instead") or ()),
            latency_ms=float(data.get("latency_ms") or 0.0),
            error=str(data["error"]) if data.get("error") else None,
            gold_ranks={str(k): int(v) for k, v in (data.get("gold_ranks") or {}).items()},
        )


def question_outcome(
    question: Question,
    ranked: Sequence[str],
    *,
    latency_ms: float = 0.0,
    error: str | None = None,
) -> QuestionOutcome:
    """The outcome of ``question`` (gold must be non-empty) given its ranking, best first."""
    order = list(dict.fromkeys(ranked))
    gold_ranks = {g: order.index(g) + 1 for g in question.gold if g in order}
    rank = min(gold_ranks.values()) if gold_ranks else None
    ahead = order[: rank - 1] if rank is not None else order
    return QuestionOutcome(
        id=question.id,
        question=question.question,
        gold=question.gold,
        rank=rank,
        metrics=question_metrics(order, question.gold),
        instead=tuple(ahead[:INSTEAD]),
        latency_ms=latency_ms,
        error=error,
        gold_ranks=gold_ranks,
    )
