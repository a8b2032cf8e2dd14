"""Labelled questions registered with the service: the demo's, a config's, or --questions."""

from __future__ import annotations

import json
from pathlib import Path

from schemaseek.service.sources import plan_sources


def test_questions_come_from_the_demo_the_config_or_the_option(tmp_path: Path) -> None:
    assert len(plan_sources(demo=True).questions) == 14
    (tmp_path / "api.graphql").write_text("type Query { orders: [String] }\n", encoding="utf-8")
    rows = [{"id": "1", "question": "all orders", "gold": ["Query.orders"]}]
    (tmp_path / "q.jsonl").write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    config = tmp_path / "schemaseek.toml"
    config.write_text(
        'questions = "q.jsonl"\n[[sources]]\nname = "api"\ntype = "graphql"\nsdl = "api.graphql"\n',
        encoding="utf-8",
    )
    plan = plan_sources(config=config)
    assert [(q.id, q.gold) for q in plan.questions] == [("1", ("Query.orders",))]
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(rows[0] | {"id": "2"}) + "\n", encoding="utf-8")
    assert [q.id for q in plan_sources(demo=True, questions=other).questions] == ["2"]
