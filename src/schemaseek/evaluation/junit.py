"""JUnit XML for CI systems: one test case per question and mode, plus one per gate.

A question's test case fails when none of its gold ids is in the first
:data:`~schemaseek.evaluation.outcomes.MISS_K` results; the failure says where the gold
ranked and what ranked instead. Gates (``--fail-under``, ``--baseline``) are a test suite of
their own, so a CI page shows both why the build failed and which questions got worse.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from schemaseek.evaluation.gates import GateResult
from schemaseek.evaluation.outcomes import MISS_K, QuestionOutcome
from schemaseek.evaluation.runner import EvalResult

__all__ = ["junit_xml", "write_junit"]


def _question_case(classname: str, outcome: QuestionOutcome) -> ET.Element:
    case = ET.Element(
        "testcase",
        name=f"{outcome.id}: {outcome.question}",
        classname=classname,
        time=f"{outcome.latency_ms / 1000.0:.4f}",
    )
    ranks = ", ".join(f"{g} #{r}" for g, r in sorted(outcome.gold_ranks.items()))
    if outcome.error:
        failure = ET.SubElement(case, "error", message=outcome.error, type="InvalidQuery")
        failure.text = outcome.error
    elif outcome.missed:
        where = f"first gold at rank {outcome.rank}" if outcome.rank else "no gold ranked"
        message = f"no gold in the top {MISS_K} ({where})"
        failure = ET.SubElement(case, "failure", message=message, type="Miss")
        failure.text = (
            f"gold: {', '.join(outcome.gold)}\n"
            f"ranked instead: {', '.join(outcome.instead) or '(nothing)'}"
            + (f"\ngold ranks: {ranks}" if ranks else "")
        )
    out = ET.SubElement(case, "system-out")
    out.text = f"rank {outcome.rank or '-'}; mrr {outcome.metrics.get('mrr', 0.0):.4f}" + (
        f"; gold ranks: {ranks}" if ranks else ""
    )
    return case


def junit_xml(result: EvalResult, gates: Sequence[GateResult] = ()) -> ET.ElementTree[ET.Element]:
    """The JUnit document of ``result`` (one suite per mode) and ``gates`` (one suite)."""
    root = ET.Element("testsuites", name=f"schemaseek eval {result.dataset}")
    total = failed = errors = 0
    for mode, scores in result.modes.items():
        cases = [_question_case(f"{result.dataset}.{mode}", o) for o in scores.questions]
        misses = sum(1 for o in scores.questions if o.missed and not o.error)
        wrong = sum(1 for o in scores.questions if o.error)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{result.dataset} ({mode})",
            tests=str(len(cases)),
            failures=str(misses),
            errors=str(wrong),
            skipped="0",
            time=f"{sum(o.latency_ms for o in scores.questions) / 1000.0:.4f}",
        )
        properties = ET.SubElement(suite, "properties")
        for metric, value in scores.metrics.items():
            ET.SubElement(properties, "property", name=metric, value=f"{value:.4f}")
        suite.extend(cases)
        total, failed, errors = total + len(cases), failed + misses, errors + wrong
    if gates:
        suite = ET.SubElement(
            root,
            "testsuite",
            name="gates",
            tests=str(len(gates)),
            failures=str(sum(not g.passed for g in gates)),
            errors="0",
            skipped="0",
        )
        for gate in gates:
            case = ET.SubElement(suite, "testcase", name=f"{gate.mode}: {gate.name}")
            case.set("classname", f"{result.dataset}.gates")
            if not gate.passed:
                ET.SubElement(case, "failure", message=gate.message, type="Gate")
        total += len(gates)
        failed += sum(not g.passed for g in gates)
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", str(errors))
    return ET.ElementTree(root)


def write_junit(path: Path, result: EvalResult, gates: Sequence[GateResult] = ()) -> None:
    """Write :func:`junit_xml` to ``path`` (UTF-8, with an XML declaration)."""
    tree = junit_xml(result, gates)
    ET.indent(tree)
    path.parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
