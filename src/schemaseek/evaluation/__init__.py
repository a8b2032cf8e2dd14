"""Retrieval evaluation: labelled questions in, recall / MRR / NDCG and latency out.

>>> from schemaseek.evaluation import evaluate, load_sql_questions, resolve_dataset
>>> from schemaseek.sources.catalog import load_catalog
>>> files = resolve_dataset("../shared/datasets/spider1-dev")          # doctest: +SKIP
>>> result = evaluate(load_catalog(files.catalog), load_sql_questions(files.queries),
...                   dataset=files.name, modes=["keyword"])           # doctest: +SKIP
>>> result.to_json()["modes"]["keyword"]["metrics"]["recall@10"]       # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemaseek.evaluation.datasets import (
        DatasetFiles,
        Question,
        load_graphql_questions,
        load_sql_questions,
        resolve_dataset,
        sample,
    )
    from schemaseek.evaluation.metrics import METRIC_NAMES, aggregate, question_metrics
    from schemaseek.evaluation.runner import SCOPES, EvalResult, ModeResult, evaluate

_LAZY = {
    **dict.fromkeys(
        (
            "DatasetFiles",
            "Question",
            "load_graphql_questions",
            "load_sql_questions",
            "resolve_dataset",
            "sample",
        ),
        "schemaseek.evaluation.datasets",
    ),
    **dict.fromkeys(
        ("METRIC_NAMES", "aggregate", "question_metrics"), "schemaseek.evaluation.metrics"
    ),
    **dict.fromkeys(
        ("SCOPES", "EvalResult", "ModeResult", "evaluate"), "schemaseek.evaluation.runner"
    ),
}


def __getattr__(name: str) -> Any:
    """The package's names load their modules on first use (the runner loads the index)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'schemaseek.evaluation' has no attribute {name!r}")


__all__ = [
    "METRIC_NAMES",
    "SCOPES",
    "DatasetFiles",
    "EvalResult",
    "ModeResult",
    "Question",
    "aggregate",
    "evaluate",
    "load_graphql_questions",
    "load_sql_questions",
    "question_metrics",
    "resolve_dataset",
    "sample",
]
