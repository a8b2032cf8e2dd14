"""Where the shared evaluation datasets live, and a marker for tests that need them
(skipped when absent, failed under ``SCHEMASEEK_REQUIRE_DATASETS=1``)."""

from __future__ import annotations

from tests.helpers.datasets import DATASETS, needs_dataset

__all__ = ["DATASETS", "needs_datasets"]

needs_datasets = needs_dataset(DATASETS / "spider1-dev" / "catalog.jsonl")
