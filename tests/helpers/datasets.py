"""Where the shared evaluation datasets are, and what a test does when they are not.

The folder is ``../shared/datasets`` beside the repository, or ``$SCHEMASEEK_DATASETS``. A test
that needs a file of it is marked ``@needs_dataset(path)`` (or calls :func:`dataset_missing`);
when the file is absent it is skipped, unless ``SCHEMASEEK_REQUIRE_DATASETS=1`` (set by
``.ci/run``, like ``SCHEMASEEK_REQUIRE_SERVICES``): then it fails, so CI cannot pass a quality
gate by skipping it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REQUIRE = "SCHEMASEEK_REQUIRE_DATASETS"
ROOT = Path(__file__).resolve().parents[2]
DATASETS = Path(os.environ.get("SCHEMASEEK_DATASETS", ROOT.parent / "shared" / "datasets"))


def dataset_missing(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail when ``SCHEMASEEK_REQUIRE_DATASETS=1``."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{reason} ({REQUIRE}=1, so this fails instead of skipping)")
    pytest.skip(reason)


def needs_dataset(path: Path) -> pytest.MarkDecorator:
    """Mark a test (or module, via ``pytestmark``) as needing ``path`` under the datasets."""
    return pytest.mark.needs_dataset(path)


def check_marked(item: pytest.Item) -> None:
    """The ``needs_dataset`` check run before each test (from the root ``conftest.py``)."""
    for mark in item.iter_markers("needs_dataset"):
        path = Path(mark.args[0])
        if not path.exists():
            dataset_missing(f"{path} is not available (set SCHEMASEEK_DATASETS)")
