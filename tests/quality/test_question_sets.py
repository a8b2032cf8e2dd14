"""Every labelled GraphQL question set passes its checker against its schema, reach included.

The gate's GraphQL entries are only as honest as their labels: a gold root field that does not
exist, or a gold type its root fields cannot reach, would score a miss (or a hit) that means
nothing. ``bench/questions/check_questions.py --strict-reach`` is the checker the sets were
written against; here it runs on each of them, and its warnings count as failures too.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.datasets import DATASETS, needs_dataset
from tests.quality.gate import QUESTIONS

CHECKER = QUESTIONS / "check_questions.py"
SETS = sorted(path.stem for path in QUESTIONS.glob("*.jsonl"))

pytestmark = needs_dataset(DATASETS / "graphql")


def test_the_question_sets_are_found() -> None:
    assert {"gitlab", "saleor", "unraid"} <= set(SETS)


@pytest.mark.parametrize("name", SETS)
def test_question_set_passes_its_checker(name: str) -> None:
    schema = DATASETS / "graphql" / f"{name}.graphql"
    done = subprocess.run(
        [sys.executable, str(CHECKER), str(schema), str(QUESTIONS / f"{name}.jsonl"),
         "--strict-reach"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 errors, 0 warnings" in done.stdout, done.stdout
