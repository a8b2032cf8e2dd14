"""The quality gate: every recorded metric must stay at or above its threshold.

Thresholds live in ``thresholds.json`` (one file, set from measured values minus a small
tolerance, only ever raised, except where a new default trades one entry for others and
bench/QUALITY.md records the trade). ``python -m tests.quality.gate`` prints the current values.
"""

from __future__ import annotations

import pytest

from schemaseek.config import SearchSettings
from tests.helpers.datasets import DATASETS, needs_dataset
from tests.quality.gate import POOLED_HELD_OUT, RUNS, measure, shortfalls, thresholds

pytestmark = [
    pytest.mark.slow,
    needs_dataset(DATASETS),
]


@pytest.mark.parametrize("entry", sorted(thresholds()))
def test_quality_stays_above_the_recorded_thresholds(entry: str) -> None:
    known = entry in RUNS or entry in POOLED_HELD_OUT
    assert known, f"thresholds.json names an unknown gate entry {entry!r}"
    problems = shortfalls(measure(entry), thresholds()[entry])
    assert not problems, f"{entry}: " + "; ".join(problems)


def test_the_gate_catches_a_degraded_parameter() -> None:
    """Turning the vector signal off and blunting the name field is a real regression; the
    same comparison the gate uses must report it."""
    degraded = SearchSettings(
        weights={"vector": 0.0},
        keyword_field_weights={"name": 0.0, "description": 0.0},
        join_boost=0.0,
    )
    entry = "spider1-dev/per-source"
    assert shortfalls(measure(entry, degraded), thresholds()[entry])


def test_every_gate_entry_has_thresholds() -> None:
    assert {*RUNS, *POOLED_HELD_OUT} == set(thresholds())
