"""The eval run history: kept across restarts, bounded, a torn line costs one run."""

from __future__ import annotations

from pathlib import Path

from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.outcomes import question_outcome
from schemaseek.web.history import EvalHistory, RecordedRun
from schemaseek.web.trials import QuestionRun


def recorded(mrr: float, at: float) -> RecordedRun:
    outcome = question_outcome(Question("q", "a question", ("A", "B")), ["X", "B", "A"])
    return RecordedRun(QuestionRun({"mrr": mrr}, (outcome,), False, 1.5, at), "manual", 3, "hybrid")


def test_runs_survive_a_restart_and_stay_bounded(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    history = EvalHistory(path, keep=3)
    for i in range(5):
        history.add(recorded(i / 10, 1000.0 + i))
    assert [r.run.metrics["mrr"] for r in history.runs()] == [0.2, 0.3, 0.4]
    again = EvalHistory(path, keep=3)
    assert [r.to_json() for r in again.runs()] == [r.to_json() for r in history.runs()]
    first = again.runs()[0].run.outcomes[0]
    assert (first.rank, first.gold_ranks, first.instead) == (2, {"B": 2, "A": 3}, ("X",))


def test_a_torn_line_costs_one_run(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    history = EvalHistory(path)
    history.add(recorded(0.5, 1.0))
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"label": "torn", "metr')
    assert [r.label for r in EvalHistory(path).runs()] == ["manual"]
    assert EvalHistory(None).runs() == []
