"""The registered labelled questions, asked of the engines being served: an eval run, and a
glossary dry run (the same questions before and after a glossary edit, nothing saved).

A dry run answers each question twice through :func:`~schemaseek.federation.federated_search`:
once as served, once with the candidate glossary's matcher swapped in for that one search
(the index's ``instrument`` hook; the serving state is never touched). So it measures what
the edit does to terms, targets, related items, priorities and ``prefer``; context text
enters documents only when the glossary is saved (a re-index), and is not part of the trial.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from schemaseek.config import SearchSettings
from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.metrics import METRIC_NAMES, aggregate
from schemaseek.evaluation.outcomes import QuestionOutcome, question_outcome
from schemaseek.federation import Ask, Member, MemberQuestion, ask_index, federated_search
from schemaseek.glossary import Glossary
from schemaseek.index.state import DocumentFacts, matcher_for
from schemaseek.query.pipeline import InvalidQueryError
from schemaseek.query.state import IndexParts

if TYPE_CHECKING:
    from schemaseek.documents import SearchResponse
    from schemaseek.index import SchemaIndex
    from schemaseek.signals.glossary import GlossaryMatcher

__all__ = ["Change", "GlossaryTrial", "QuestionRun", "glossary_trial", "run_questions"]

SEARCH_LIMIT = 20
Verdict = Literal["improved", "regressed", "changed"]


@dataclass(frozen=True, slots=True)
class QuestionRun:
    """Every registered question asked once: mean metrics and each question's outcome."""

    metrics: dict[str, float]
    outcomes: tuple[QuestionOutcome, ...]
    degraded: bool
    took_ms: float
    at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "metrics": {k: round(v, 4) for k, v in self.metrics.items()},
            "outcomes": [o.to_json() for o in self.outcomes],
            "degraded": self.degraded,
            "took_ms": round(self.took_ms, 1),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionRun:
        return cls(
            metrics={str(k): float(v) for k, v in data["metrics"].items()},
            outcomes=tuple(QuestionOutcome.from_json(o) for o in data.get("outcomes") or ()),
            degraded=bool(data.get("degraded")),
            took_ms=float(data.get("took_ms") or 0.0),
            at=float(data.get("at") or 0.0),
        )


@dataclass(frozen=True, slots=True)
class Change:
    """One question whose ranking of its gold ids moved."""

    before: QuestionOutcome
    after: QuestionOutcome
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class GlossaryTrial:
    """A dry run: both runs, the questions that moved, and the metric deltas (after − before)."""

    before: QuestionRun
    after: QuestionRun
    changes: tuple[Change, ...]
    deltas: dict[str, float]

    def count(self, verdict: Verdict) -> int:
        return sum(1 for c in self.changes if c.verdict == verdict)


def run_questions(
    members: Sequence[Member],
    questions: Sequence[Question],
    settings: SearchSettings,
    *,
    ask: Ask = ask_index,
    mode: str = "hybrid",
) -> QuestionRun:
    """Ask every question with gold of the members (pooled over every source)."""
    started = time.perf_counter()
    pairs: list[tuple[list[str], tuple[str, ...]]] = []
    outcomes: list[QuestionOutcome] = []
    degraded = False
    for question in (q for q in questions if q.gold):
        asked = time.perf_counter()
        error = None
        try:
            answer = federated_search(
                members, question.question, limit=SEARCH_LIMIT, mode=mode, settings=settings,
                ask=ask,
            )  # fmt: skip
            ranked, degraded = answer.ids(), degraded or answer.degraded
        except InvalidQueryError as exc:
            ranked, error = [], str(exc)
        took = (time.perf_counter() - asked) * 1000.0
        pairs.append((ranked, question.gold))
        outcomes.append(question_outcome(question, ranked, latency_ms=took, error=error))
    summary = aggregate(pairs)
    took_ms = (time.perf_counter() - started) * 1000.0
    return QuestionRun(summary.metrics, tuple(outcomes), degraded, took_ms)


def _candidate_matchers(
    members: Sequence[Member], candidate: Glossary
) -> dict[str, GlossaryMatcher | None]:
    """Each member's matcher for ``candidate``, narrowed to its source as the engines do."""
    out: dict[str, GlossaryMatcher | None] = {}
    for member in members:
        index = member.index
        if index is None:
            continue
        glossary = candidate.narrowed_to(index.sources[0]) if len(index.sources) == 1 else candidate
        out[member.name] = matcher_for(glossary, DocumentFacts.of(index.documents))
    return out


def candidate_ask(members: Sequence[Member], candidate: Glossary) -> Ask:
    """An :data:`~schemaseek.federation.Ask` that searches with ``candidate``'s matcher."""
    matchers = _candidate_matchers(members, candidate)

    def ask(name: str, index: SchemaIndex, question: MemberQuestion) -> SearchResponse:
        def swap(parts: IndexParts) -> IndexParts:
            return dataclasses.replace(parts, matcher=matchers.get(name))

        return question.search(index, instrument=swap)

    return ask


def _verdict(before: QuestionOutcome, after: QuestionOutcome) -> Verdict | None:
    if before.gold_ranks == after.gold_ranks:
        return None
    worst = SEARCH_LIMIT + 1
    old = (before.rank or worst, -before.metrics["ndcg@10"])
    new = (after.rank or worst, -after.metrics["ndcg@10"])
    if new < old:
        return "improved"
    return "regressed" if new > old else "changed"


def glossary_trial(
    members: Sequence[Member],
    questions: Sequence[Question],
    settings: SearchSettings,
    candidate: Glossary,
    *,
    mode: str = "hybrid",
) -> GlossaryTrial:
    """The questions asked as served and with ``candidate`` (see the module docstring)."""
    before = run_questions(members, questions, settings, mode=mode)
    ask = candidate_ask(members, candidate)
    after = run_questions(members, questions, settings, ask=ask, mode=mode)
    changes = []
    for old, new in zip(before.outcomes, after.outcomes, strict=True):
        verdict = _verdict(old, new)
        if verdict is not None:
            changes.append(Change(old, new, verdict))
    order = {"regressed": 0, "improved": 1, "changed": 2}
    changes.sort(key=lambda c: (order[c.verdict], c.before.id))
    deltas = {m: after.metrics[m] - before.metrics[m] for m in METRIC_NAMES}
    return GlossaryTrial(before, after, tuple(changes), deltas)
