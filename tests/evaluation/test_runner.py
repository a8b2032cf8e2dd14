"""evaluate(): scopes, modes, skipped questions, shared table ids, progress and the JSON shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schemaseek.errors import ConfigError
from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.metrics import METRIC_NAMES
from schemaseek.evaluation.runner import evaluate
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.catalog import load_catalog
from tests.evaluation.fakes import FakeProvider


def table(source: str, name: str, columns: list[str], fqn: str | None = None) -> dict[str, Any]:
    return {
        "source": source,
        "database": source,
        "schema": None,
        "table": name,
        "fqn": fqn or f"{source}.{name}",
        "description": None,
        "columns": [{"name": c, "type": "text", "description": None} for c in columns],
        "foreign_keys": [],
    }


@pytest.fixture()
def sources(tmp_path: Path) -> list[SourceSchema]:
    rows = [
        table("music", "artist", ["artist_name", "country"]),
        table("music", "album", ["album_title", "release_year"]),
        table("cars", "car", ["maker", "model", "horsepower"]),
        table("cars", "artist", ["designer_name"]),  # an 'artist' in another source
    ]
    path = tmp_path / "catalog.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_catalog(path)


QUESTIONS = [
    Question("1", "which artist is from which country", ("music.artist",), "music"),
    Question("2", "album titles by release year", ("music.album",), "music"),
    Question("3", "horsepower of each car maker", ("cars.car",), "cars"),
    Question("4", "a question without gold", (), "cars"),
]


def test_keyword_per_source_json_shape(sources: list[SourceSchema]) -> None:
    provider = FakeProvider()
    result = evaluate(
        sources, QUESTIONS, dataset="tiny", modes=["keyword"], provider=provider, gold="tables"
    )
    assert provider.embed_calls == provider.query_calls == 0  # keyword only: no model
    payload = result.to_json()
    assert payload["dataset"] == "tiny"
    assert payload["scope"] == "per-source"
    assert payload["queries"] == 3
    assert payload["skipped"] == 1
    assert payload["gold"] == "tables"
    assert list(payload["modes"]) == ["keyword"]
    keyword = payload["modes"]["keyword"]
    assert tuple(keyword["metrics"]) == METRIC_NAMES
    assert set(keyword["latency_ms"]) == {"p50", "p95"}
    assert keyword["index_s"] >= 0
    assert keyword["metrics"]["hit@1"] == 1.0
    assert keyword["metrics"]["recall@10"] == 1.0
    json.dumps(payload)  # serialisable


def test_every_mode_with_a_provider(sources: list[SourceSchema]) -> None:
    provider = FakeProvider(dimensions=16)
    stages: list[tuple[str, int, int]] = []
    result = evaluate(
        sources,
        QUESTIONS,
        dataset="tiny",
        modes=["hybrid", "vector", "keyword", "hybrid"],
        scope="pooled",
        provider=provider,
        progress=lambda stage, done, total: stages.append((stage, done, total)),
    )
    assert list(result.modes) == ["hybrid", "vector", "keyword"]
    # the four documents once, whatever the modes; the rest are the name bridge's words
    documents = [t for t in provider.embedded if len(t.split()) > 1]
    assert len(documents) == len(set(documents)) == 4
    words = [t for t in provider.embedded if len(t.split()) == 1]
    assert len(words) == len(set(words))  # each embedded once (vocabulary, then cached)
    assert provider.query_calls >= 3  # one embedding per question and mode (no cache reuse)
    for scores in result.modes.values():
        assert scores.degraded == 0
        assert scores.latency_p95_ms >= scores.latency_p50_ms > 0
    names = {stage for stage, _, _ in stages}
    assert {"keyword", "embedding", "hybrid queries", "vector queries"} <= names
    assert ("keyword queries", 3, 3) in stages


def test_per_source_ranks_only_the_questions_source(sources: list[SourceSchema]) -> None:
    question = Question("x", "artist", ("cars.artist",), "cars")
    per_source = evaluate(sources, [question], dataset="t", modes=["keyword"], provider=None)
    pooled = evaluate(
        sources, [question], dataset="t", modes=["keyword"], scope="pooled", provider=None
    )
    assert per_source.modes["keyword"].metrics["hit@1"] == 1.0
    assert pooled.modes["keyword"].metrics["hit@5"] == 1.0
    assert pooled.documents == per_source.documents == 4


def test_tables_shared_between_sources(tmp_path: Path) -> None:
    rows = [
        table("a", "weather", ["temperature"], fqn="PUBLIC.WEATHER"),
        table("a", "stations", ["station_name"]),
        table("b", "weather", ["temperature"], fqn="PUBLIC.WEATHER"),
    ]
    path = tmp_path / "catalog.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    questions = [
        Question("1", "temperature", ("PUBLIC.WEATHER",), "a"),
        Question("2", "temperature", ("PUBLIC.WEATHER",), "b"),
    ]
    for scope in ("per-source", "pooled"):
        result = evaluate(
            load_catalog(path), questions, dataset="t", modes=["keyword"], scope=scope
        )
        assert result.modes["keyword"].metrics["hit@1"] == 1.0, scope


def test_bad_arguments(sources: list[SourceSchema]) -> None:
    with pytest.raises(ConfigError, match="mode must be one of"):
        evaluate(sources, QUESTIONS, dataset="t", modes=["fuzzy"], provider=None)
    with pytest.raises(ConfigError, match="at least one mode"):
        evaluate(sources, QUESTIONS, dataset="t", modes=[], provider=None)
    with pytest.raises(ConfigError, match="scope must be one of"):
        evaluate(sources, QUESTIONS, dataset="t", scope="global", provider=None)
