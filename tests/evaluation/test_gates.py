"""``eval`` as a CI gate: --fail-under floors, --baseline regressions, JUnit XML, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from schemaseek.errors import ConfigError
from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.gates import check_baseline, check_floors, load_baseline, parse_floor
from schemaseek.evaluation.junit import write_junit
from schemaseek.evaluation.outcomes import question_outcome
from schemaseek.evaluation.runner import EvalResult, ModeResult

RUN = [sys.executable, "-c", "from schemaseek.cli import main; main()"]
EVAL = ["eval", "--demo", "--mode", "keyword"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUN, *args], capture_output=True, text=True, timeout=300)


def result(metrics: dict[str, float], mode: str = "keyword") -> EvalResult:
    outcomes = (
        question_outcome(Question("q1", "a hit", ("A",)), ["A", "B"], latency_ms=2.0),
        question_outcome(Question("q2", "a miss", ("Z",)), [f"X{i}" for i in range(12)] + ["Z"]),
    )
    scores = ModeResult(metrics, 1.0, 2.0, 0.1, questions=outcomes)
    return EvalResult("tiny", "pooled", 2, 0, "ids", 10, {mode: scores})


def test_floors_parse_and_check() -> None:
    assert parse_floor("recall@5=0.8").metric == "recall@5"
    assert parse_floor("hybrid:MRR=0.5").mode == "hybrid"
    gates = check_floors(result({"recall@5": 0.8, "mrr": 0.4}), [parse_floor("recall@5=0.8")])
    assert [g.passed for g in gates] == [True]
    gates = check_floors(result({"recall@5": 0.79999}), [parse_floor("recall@5=0.8")])
    assert [g.passed for g in gates] == [True]  # compared at the 4 decimals --json prints
    gates = check_floors(result({"recall@5": 0.7}), [parse_floor("keyword:recall@5=0.8")])
    assert not gates[0].passed and "0.7000 < 0.8" in gates[0].message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recall@5", "expects METRIC=VALUE"),
        ("recall@7=0.5", "unknown metric 'recall@7'"),
        ("mrr=high", "'high' is not a number"),
    ],
)
def test_floor_usage_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_floor(text)


def test_floor_on_a_mode_not_scored() -> None:
    with pytest.raises(ConfigError, match="names mode 'vector'"):
        check_floors(result({"mrr": 1.0}), [parse_floor("vector:mrr=0.5")])


def test_baseline_tolerance(tmp_path: Path) -> None:
    saved = tmp_path / "base.json"
    saved.write_text(json.dumps(result({"mrr": 0.5, "hit@1": 0.5}).to_json()), encoding="utf-8")
    baseline = load_baseline(saved)
    now = result({"mrr": 0.48, "hit@1": 0.6})
    assert [g.passed for g in check_baseline(now, baseline)] == [False, True]
    assert all(g.passed for g in check_baseline(now, baseline, tolerance=0.02))
    with pytest.raises(ConfigError, match="no 'modes'"):
        (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
        load_baseline(tmp_path / "bad.json")


def test_junit_one_case_per_question(tmp_path: Path) -> None:
    path = tmp_path / "eval.xml"
    gates = check_floors(result({"mrr": 0.25}), [parse_floor("mrr=0.5")])
    write_junit(path, result({"mrr": 0.25}), gates)
    xml = JUnitXml.fromfile(str(path))
    suites = {suite.name: suite for suite in xml}
    cases = list(suites["tiny (keyword)"])
    assert [c.name for c in cases] == ["q1: a hit", "q2: a miss"]
    assert cases[0].is_passed
    failure = cases[1].result[0]
    assert isinstance(failure, Failure) and "rank 13" in (failure.message or "")
    assert "X0" in (failure.text or "")
    assert suites["gates"].failures == 1


def test_cli_fail_under_exits_1_and_writes_junit(tmp_path: Path) -> None:
    junit = tmp_path / "eval.xml"
    done = cli(*EVAL, "--fail-under", "recall@5=1.01", "--junit", str(junit), "--json")
    assert done.returncode == 1, done.stderr
    payload = json.loads(done.stdout)
    assert payload["passed"] is False
    assert payload["gates"][0]["metric"] == "recall@5"
    xml = JUnitXml.fromfile(str(junit))
    questions = next(s for s in xml if s.name == "demo (keyword)")
    assert questions.tests == 14
    assert not any(isinstance(r, Error) for case in questions for r in case.result)
    passed = cli(*EVAL, "--fail-under", "recall@20=0.5", "--fail-under", "hit@10=0.5")
    assert passed.returncode == 0, passed.stderr
    assert "gates" in passed.stdout and "FAIL" not in passed.stdout


def test_cli_baseline_catches_a_planted_regression(tmp_path: Path) -> None:
    first = cli(*EVAL, "--json")
    assert first.returncode == 0, first.stderr
    saved = json.loads(first.stdout)
    same = tmp_path / "same.json"
    same.write_text(first.stdout, encoding="utf-8")
    assert cli(*EVAL, "--baseline", str(same)).returncode == 0
    saved["modes"]["keyword"]["metrics"]["mrr"] += 0.05  # the baseline was better: a regression
    better = tmp_path / "better.json"
    better.write_text(json.dumps(saved), encoding="utf-8")
    regressed = cli(*EVAL, "--baseline", str(better))
    assert regressed.returncode == 1
    assert "baseline" in regressed.stderr and "mrr" in regressed.stderr
    assert cli(*EVAL, "--baseline", str(better), "--tolerance", "0.06").returncode == 0


def test_cli_usage_errors_exit_2(tmp_path: Path) -> None:
    bad_metric = cli(*EVAL, "--fail-under", "recall@7=0.5")
    assert bad_metric.returncode == 2 and "unknown metric" in " ".join(bad_metric.stderr.split())
    missing = cli(*EVAL, "--baseline", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "file not found" in " ".join(missing.stderr.split())
