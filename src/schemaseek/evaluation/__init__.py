"""Retrieval evaluation: labelled questions in, recall / MRR / NDCG and latency out.

>>> from schemaseek.evaluation import evaluate, load_sql_questions, resolve_dataset
>>> from schemaseek.sources.catalog import load_catalog
>>> files = resolve_dataset("../shared/datasets/spider1-dev")          # doctest: +SKIP
>>> result = evaluate(load_catalog(files.catalog), load_sql_questions(files.queries),
...                   dataset=files.name, modes=["keyword"])           # doctest: +SKIP
>>> result.to_json()["modes"]["keyword"]["metrics"]["recall@10"]       # doctest: +SKIP
"""

from __future__ import annotations

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
