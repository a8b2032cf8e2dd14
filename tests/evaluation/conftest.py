"""Where the shared evaluation datasets live, and a marker that skips when they are absent."""

from __future__ import annotations

from pathlib import Path

import pytest

DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"

needs_datasets = pytest.mark.skipif(
    not (DATASETS / "spider1-dev" / "catalog.jsonl").is_file(),
    reason=f"the shared evaluation datasets are not at {DATASETS}",
)
