"""``eval`` as a CI gate: floors on metrics and regressions against a saved baseline.

* :func:`parse_floor` reads ``METRIC=VALUE`` or ``MODE:METRIC=VALUE`` (``--fail-under``); a
  floor without a mode applies to every mode scored.
* :func:`check_floors` and :func:`check_baseline` turn an :class:`EvalResult` into
  :class:`GateResult` rows; a baseline is an earlier ``eval --json`` output, and a metric
  fails when it drops by more than ``tolerance`` below the baseline's value (the comparison
  uses the 4-decimal values ``--json`` prints, so a result compared with itself passes).

Latency is never gated here: it depends on the machine, not on the ranking.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemaseek.errors import ConfigError
from schemaseek.evaluation.metrics import METRIC_NAMES

if TYPE_CHECKING:  # the runner loads numpy and the index: the command line starts light
    from schemaseek.evaluation.runner import EvalResult

__all__ = ["Floor", "GateResult", "check_baseline", "check_floors", "load_baseline", "parse_floor"]

DIGITS = 4


@dataclass(frozen=True, slots=True)
class Floor:
    """``metric`` must be at least ``value`` (in ``mode``, or in every mode when None)."""

    metric: str
    value: float
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class GateResult:
    """One checked gate: what was required, what was measured, whether it held."""

    name: str
    mode: str
    metric: str
    required: float
    actual: float
    passed: bool
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "gate": self.name,
            "mode": self.mode,
            "metric": self.metric,
            "required": self.required,
            "actual": self.actual,
            "passed": self.passed,
            "message": self.message,
        }


def parse_floor(text: str) -> Floor:
    """``recall@5=0.8`` or ``hybrid:mrr=0.5`` as a :class:`Floor`.

    Raises:
        ConfigError: no ``=``, an unknown metric, or a value that is not a number.
    """
    spec, sep, raw = text.partition("=")
    if not sep or not spec.strip() or not raw.strip():
        raise ConfigError(f"--fail-under expects METRIC=VALUE (e.g. recall@5=0.8), not {text!r}")
    mode, _, metric = spec.strip().rpartition(":")
    metric = metric.strip().lower()
    if metric not in METRIC_NAMES:
        raise ConfigError(
            f"--fail-under: unknown metric {metric!r}; valid: {', '.join(METRIC_NAMES)}"
        )
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"--fail-under {text!r}: {raw.strip()!r} is not a number") from None
    return Floor(metric, value, mode.strip() or None)


def check_floors(result: EvalResult, floors: Sequence[Floor]) -> list[GateResult]:
    """Every floor checked against every mode it applies to.

    Raises:
        ConfigError: a floor names a mode that was not scored.
    """
    out: list[GateResult] = []
    for floor in floors:
        if floor.mode is not None and floor.mode not in result.modes:
            scored = ", ".join(result.modes)
            raise ConfigError(f"--fail-under names mode {floor.mode!r}; scored: {scored}")
        modes = [floor.mode] if floor.mode is not None else list(result.modes)
        for mode in modes:
            actual = round(result.modes[mode].metrics[floor.metric], DIGITS)
            passed = actual >= floor.value
            verdict = "≥" if passed else "<"
            out.append(
                GateResult(
                    name=f"fail-under {floor.metric}={floor.value:g}",
                    mode=mode,
                    metric=floor.metric,
                    required=floor.value,
                    actual=actual,
                    passed=passed,
                    message=f"{mode} {floor.metric} {actual:.4f} {verdict} {floor.value:g}",
                )
            )
    return out


def load_baseline(path: Path) -> dict[str, dict[str, float]]:
    """``{mode: {metric: value}}`` from a saved ``eval --json`` output.

    Raises:
        ConfigError: the file is missing, not JSON, or holds no ``modes`` with metrics.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--baseline {path}: file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--baseline {path}: not an 'eval --json' output ({exc})") from None
    modes = data.get("modes") if isinstance(data, dict) else None
    if not isinstance(modes, dict) or not modes:
        raise ConfigError(f"--baseline {path}: no 'modes' (save one with 'eval --json')")
    out: dict[str, dict[str, float]] = {}
    for mode, scores in modes.items():
        metrics = scores.get("metrics") if isinstance(scores, dict) else None
        if not isinstance(metrics, dict):
            raise ConfigError(f"--baseline {path}: mode {mode!r} has no metrics")
        out[str(mode)] = {
            str(k): float(v) for k, v in metrics.items() if isinstance(v, int | float)
        }
    return out


def check_baseline(
    result: EvalResult, baseline: dict[str, dict[str, float]], tolerance: float = 0.0
) -> list[GateResult]:
    """Each metric of each mode scored in both, failing when it drops by more than
    ``tolerance``.

    Raises:
        ConfigError: a negative tolerance, or no mode in common.
    """
    if tolerance < 0:
        raise ConfigError(f"--tolerance must be >= 0, not {tolerance:g}")
    common = [m for m in result.modes if m in baseline]
    if not common:
        raise ConfigError(
            f"the baseline scored {', '.join(baseline)}; this run {', '.join(result.modes)}"
        )
    out: list[GateResult] = []
    for mode in common:
        for metric, before in baseline[mode].items():
            if metric not in result.modes[mode].metrics:
                continue
            actual = round(result.modes[mode].metrics[metric], DIGITS)
            drop = round(before - actual, DIGITS)
            passed = drop <= tolerance
            change = f"{actual - before:+.4f}"
            out.append(
                GateResult(
                    name=f"baseline {metric}",
                    mode=mode,
                    metric=metric,
                    required=round(before - tolerance, DIGITS),
                    actual=actual,
                    passed=passed,
                    message=(
                        f"{mode} {metric} {actual:.4f} vs baseline {before:.4f} ({change}"
                        + (f", tolerance {tolerance:g})" if not passed else ")")
                    ),
                )
            )
    return out
