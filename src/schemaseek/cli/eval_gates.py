"""The gate options of ``eval`` (``--fail-under``, ``--baseline``, ``--tolerance``, ``--junit``)
and how their verdicts are shown. The checks themselves are :mod:`schemaseek.evaluation.gates`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from schemaseek.cli.output import stderr, stdout
from schemaseek.evaluation.gates import (
    Floor,
    GateResult,
    check_baseline,
    check_floors,
    load_baseline,
    parse_floor,
)

if TYPE_CHECKING:  # the runner loads numpy and the index: the command line starts light
    from schemaseek.evaluation.runner import EvalResult

__all__ = [
    "BaselineOpt",
    "FailUnderOpt",
    "GateSpec",
    "JunitOpt",
    "ToleranceOpt",
    "gates_json",
    "print_gates",
]

FailUnderOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-under",
        help="METRIC=VALUE or MODE:METRIC=VALUE; exit 1 when a metric is below (repeatable).",
    ),
]
BaselineOpt = Annotated[
    Path | None,
    typer.Option("--baseline", help="A saved 'eval --json' output; exit 1 when a metric drops."),
]
ToleranceOpt = Annotated[
    float,
    typer.Option("--tolerance", min=0.0, help="How far a metric may drop below --baseline."),
]
JunitOpt = Annotated[
    Path | None, typer.Option("--junit", help="Write JUnit XML: one test case per question.")
]


@dataclass(frozen=True, slots=True)
class GateSpec:
    """The gates asked for, read (and so checked for usage errors) before anything runs."""

    floors: tuple[Floor, ...]
    baseline: dict[str, dict[str, float]] | None
    tolerance: float

    @classmethod
    def of(
        cls, fail_under: Sequence[str] | None, baseline: Path | None, tolerance: float
    ) -> GateSpec:
        floors = tuple(parse_floor(text) for text in fail_under or ())
        saved = load_baseline(baseline) if baseline is not None else None
        return cls(floors, saved, tolerance)

    def check(self, result: EvalResult) -> list[GateResult]:
        gates = check_floors(result, self.floors)
        if self.baseline is not None:
            gates += check_baseline(result, self.baseline, self.tolerance)
        return gates


def gates_json(gates: Sequence[GateResult]) -> dict[str, Any]:
    """``{"gates": [...], "passed": bool}`` for ``--json`` (empty without gates)."""
    if not gates:
        return {}
    return {"gates": [g.to_json() for g in gates], "passed": all(g.passed for g in gates)}


def print_gates(gates: Sequence[GateResult]) -> None:
    """A table of the gates; failures are repeated on stderr."""
    if not gates:
        return
    table = Table(title="gates", title_justify="left")
    for column in ("gate", "mode", "actual", "required", ""):
        table.add_column(column)
    for gate in gates:
        verdict = "[green]pass[/]" if gate.passed else "[red]FAIL[/]"
        table.add_row(gate.name, gate.mode, f"{gate.actual:.4f}", f"{gate.required:.4f}", verdict)
    stdout.print(table)
    for gate in gates:
        if not gate.passed:
            stderr.print(f"[red]gate failed:[/] {gate.message}")
