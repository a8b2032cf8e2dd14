"""``schemaseek eval`` end to end: JSON shape, human table, input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schemaseek.cli.app import app
from schemaseek.errors import ConfigError
from schemaseek.evaluation.metrics import METRIC_NAMES
from tests.evaluation.conftest import DATASETS, needs_datasets

runner = CliRunner()


@needs_datasets
def test_eval_spider1_keyword_json() -> None:
    args = ["eval", "--dataset", str(DATASETS / "spider1-dev"), "--mode", "keyword"]
    result = runner.invoke(app, [*args, "--limit-queries", "30", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert {"dataset", "scope", "queries", "modes"} <= set(payload)
    assert payload["dataset"] == "spider1-dev"
    assert payload["scope"] == "per-source"
    assert payload["queries"] == 30
    keyword = payload["modes"]["keyword"]
    assert set(keyword) >= {"metrics", "latency_ms", "index_s"}
    assert tuple(keyword["metrics"]) == METRIC_NAMES
    assert set(keyword["latency_ms"]) == {"p50", "p95"}
    assert keyword["metrics"]["recall@10"] > 0.8


@needs_datasets
def test_eval_catalog_file_pooled_columns_table(tmp_path: Path) -> None:
    root = DATASETS / "spider1-dev"
    args = ["eval", "--catalog", str(root / "catalog.jsonl"), "--queries"]
    args += [str(root / "queries.jsonl"), "--gold", "columns", "--scope", "pooled"]
    result = runner.invoke(app, [*args, "--mode", "keyword", "--limit-queries", "20"])
    assert result.exit_code == 0, result.output
    assert "catalog — pooled" in result.stdout
    assert "gold: columns (scored at table level)" in result.stdout
    for name in ("recall@10", "all_gold@10", "ndcg@10", "p50 ms", "index s"):
        assert name in result.stdout


def test_eval_graphql_set(tmp_path: Path) -> None:
    sdl = tmp_path / "shop.graphql"
    sdl.write_text(
        '"""Buyers."""\ntype Customer { id: ID! name: String }\n'
        '"""Sales."""\ntype Order { id: ID! total: Float customer: Customer }\n'
        "type Query { customers: [Customer!]! orders(since: String): [Order!]! }\n",
        encoding="utf-8",
    )
    questions = tmp_path / "shop.jsonl"
    rows = [
        {"id": "1", "question": "list the orders", "gold": ["Query.orders"]},
        {"id": "2", "question": "all customers", "gold": ["Query.customers"]},
    ]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["eval", "--sdl", str(sdl), "--queries", str(questions), "--mode", "keyword"]
    result = runner.invoke(app, [*args, "--kind", "graphql_root_field", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["dataset"], payload["queries"], payload["gold"]) == ("shop", 2, "ids")
    assert payload["modes"]["keyword"]["metrics"]["hit@1"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give exactly one of"),
        (["--dataset", "a", "--sdl", "b"], "got --dataset and --sdl"),
        (["--catalog", "catalog.jsonl"], "--catalog FILE needs --queries FILE"),
        (["--sdl", "schema.graphql"], "need --queries FILE"),
        (["--dataset", "no/such/dir"], "dataset directory not found"),
    ],
)
def test_eval_input_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["eval", *args, "--mode", "keyword"])
    assert isinstance(result.exception, ConfigError)
    assert message in str(result.exception)
