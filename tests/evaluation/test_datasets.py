"""Question files: SQL gold tables / columns, GraphQL sets, the fixed sample, dataset dirs."""

from __future__ import annotations

import json
import lzma
from pathlib import Path
from typing import Any

import pytest

from schemaseek.errors import ConfigError, SourceError
from schemaseek.evaluation.datasets import (
    Question,
    gold_label,
    load_graphql_questions,
    load_sql_questions,
    resolve_dataset,
    sample,
)
from tests.evaluation.conftest import DATASETS, needs_datasets

SQL_ROWS: list[dict[str, Any]] = [
    {
        "id": "q1",
        "source": "shop",
        "question": "Who bought the most?",
        "gold_tables": ["shop.orders", "shop.customer"],
        "gold_columns": ["shop.orders.customer_id", "shop.customer.id", "shop.customer.name"],
    },
    {
        "id": "q2",
        "source": "shop",
        "question": "How many customers?",
        "gold_tables": ["shop.customer"],
        "gold_columns": [],
    },
    {
        "id": "q3",
        "source": "snow",
        "question": "Dotted names",
        "gold_tables": ["DB.S.T"],
        "gold_columns": ["DB.S.T.Rate (a.b)"],
    },
    {"id": "q4", "source": "snow", "question": "No columns", "gold_tables": ["DB.S.U"]},
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_gold_tables(tmp_path: Path) -> None:
    questions = load_sql_questions(write_jsonl(tmp_path / "queries.jsonl", SQL_ROWS))
    assert questions[0] == Question(
        "q1", "Who bought the most?", ("shop.orders", "shop.customer"), "shop"
    )
    assert [q.gold for q in questions[1:]] == [("shop.customer",), ("DB.S.T",), ("DB.S.U",)]


def test_gold_columns_map_to_their_tables(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "queries.jsonl", SQL_ROWS)
    questions = load_sql_questions(path, gold="columns")
    assert questions[0].gold == ("shop.orders", "shop.customer")  # de-duplicated, in order
    assert questions[1].gold == ()  # COUNT(*) only: no gold, skipped when scoring
    assert questions[2].gold == ("DB.S.T",)  # the column name's own dot is kept
    assert questions[3].gold == ()  # null gold_columns
    assert gold_label("columns") == "columns (scored at table level)"
    assert gold_label("tables") == "tables"


def test_xz_queries(tmp_path: Path) -> None:
    path = tmp_path / "queries_full.jsonl.xz"
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in SQL_ROWS)
    assert [q.id for q in load_sql_questions(path)] == ["q1", "q2", "q3", "q4"]


def test_bad_question_rows(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "queries.jsonl", [SQL_ROWS[0], {"id": "x", "source": "s"}])
    with pytest.raises(SourceError, match=r"line 2: malformed question: KeyError\('question'\)"):
        load_sql_questions(path)
    with pytest.raises(ConfigError, match="gold must be"):
        load_sql_questions(path, gold="rows")  # type: ignore[arg-type]


def test_graphql_questions(tmp_path: Path) -> None:
    rows = [
        {"id": "g1", "question": "open issues", "gold": ["Query.issues", "Issue", "Issue"]},
        {"id": "g2", "question": "who am i", "gold": ["Query.currentUser"]},
    ]
    questions = load_graphql_questions(write_jsonl(tmp_path / "gitlab.jsonl", rows))
    assert questions[0] == Question("g1", "open issues", ("Query.issues", "Issue"), None)
    assert len(questions) == 2
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "g", "question": "q", "gold": "Issue"}])
    with pytest.raises(SourceError, match="line 1: malformed question"):
        load_graphql_questions(bad)


def test_sample_is_fixed_and_in_file_order() -> None:
    questions = [Question(str(i), f"question {i}", ("t",)) for i in range(500)]
    first = sample(questions, 100)
    assert first == sample(list(questions), 100)
    assert len(first) == 100
    assert len({q.id for q in first}) == 100
    positions = [int(q.id) for q in first]
    assert positions == sorted(positions)
    assert positions != list(range(100))  # a shuffle, not a prefix
    assert set(positions[:10]) <= set(int(q.id) for q in sample(questions, 400))
    assert sample(questions, None) == questions
    assert sample(questions, 1000) == questions


def test_sample_pinned_values() -> None:
    """Pinned: changing the sampling would silently change every recorded sample."""
    questions = [Question(str(i), "q", ("t",)) for i in range(20)]
    assert [q.id for q in sample(questions, 5)] == ["0", "10", "14", "16", "18"]


def test_limit_applies_when_loading(tmp_path: Path) -> None:
    rows = [dict(SQL_ROWS[0], id=f"q{i}") for i in range(50)]
    path = write_jsonl(tmp_path / "queries.jsonl", rows)
    assert load_sql_questions(path, limit=7) == load_sql_questions(path, limit=7)
    assert len(load_sql_questions(path, limit=7)) == 7


def test_resolve_dataset_prefers_plain_files(tmp_path: Path) -> None:
    root = tmp_path / "my-set"
    root.mkdir()
    (root / "catalog_full.jsonl.xz").write_bytes(b"")
    (root / "queries_full.jsonl.xz").write_bytes(b"")
    files = resolve_dataset(root)
    assert (files.name, files.catalog.name, files.queries.name) == (
        "my-set",
        "catalog_full.jsonl.xz",
        "queries_full.jsonl.xz",
    )
    (root / "catalog.jsonl").write_text("", encoding="utf-8")
    assert resolve_dataset(root).catalog.name == "catalog.jsonl"
    with pytest.raises(ConfigError, match="dataset directory not found"):
        resolve_dataset(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"none of catalog\.jsonl, catalog_full\.jsonl\.xz"):
        resolve_dataset(tmp_path / "empty")


@needs_datasets
def test_real_dataset_questions() -> None:
    files = resolve_dataset(DATASETS / "spider1-dev")
    questions = load_sql_questions(files.queries)
    assert len(questions) == 1034
    assert all(q.gold and q.source for q in questions)
    fixed = load_sql_questions(files.queries, limit=100)
    assert fixed == load_sql_questions(files.queries, limit=100)
    lite = resolve_dataset(DATASETS / "spider2-lite")
    assert lite.catalog.name == "catalog_full.jsonl.xz"
    assert lite.queries.name == "queries.jsonl"
