"""With the real model: a restored engine answers the demo questions exactly as the engine that
saved it, without embedding a single document."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.engine import EngineState, SourceEngine
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.demo import demo_glossary, demo_questions, demo_sources


def test_restored_engine_is_congruent(tmp_path: Path, onnx_provider: OnnxEmbeddingProvider) -> None:
    schema = demo_sources()[0]
    glossary = demo_glossary()
    manager = SnapshotManager(LocalDirStore(tmp_path))
    original = SourceEngine(
        schema.name, lambda: schema, provider=onnx_provider, glossary=glossary, snapshots=manager
    )
    original.init(wait=True)
    assert original.state is EngineState.READY and original.generation
    counting = CountingProvider(onnx_provider)

    def down() -> SourceSchema:
        raise OSError("offline")

    restored = SourceEngine(
        schema.name, down, provider=counting, glossary=glossary,
        snapshots=SnapshotManager(LocalDirStore(tmp_path)),
    )  # fmt: skip
    restored.init(wait=True)
    assert restored.generation == original.generation
    assert counting.embed_calls == 0 and restored.state is EngineState.READY
    for question in demo_questions():
        a = original.search(question, limit=10)
        b = restored.search(question, limit=10)
        assert a.ids() == b.ids(), question
        assert [h.score for h in a.hits] == [h.score for h in b.hits]
        assert [h.explanation.to_dict() for h in a.hits] == [
            h.explanation.to_dict() for h in b.hits
        ]
        assert [r.id for h in a.hits for r in h.related] == [
            r.id for h in b.hits for r in h.related
        ]
    original.destroy()
    restored.destroy()


def _search_options(schema: SourceSchema) -> list[dict[str, Any]]:
    """Every search option the library takes, each alone and a few combined."""
    first_kind = schema.documents[0].kind
    prefix = schema.documents[0].id.split(".")[0] + "*"
    return [
        {},
        {"sources": [schema.name]},
        {"sources": [schema.name], "kinds": [first_kind]},
        {"kinds": [first_kind]},
        {"include": [prefix]},
        {"exclude": [prefix]},
        {"sources": [schema.name], "exclude": [prefix], "limit": 3},
        {"mode": "vector", "sources": [schema.name]},
        {"mode": "keyword", "sources": [schema.name]},
    ]


def _answers(engine: SourceEngine, question: str, options: dict[str, Any]) -> list[Any]:
    response = engine.index.search(question, **{"limit": 10, **options})
    return [
        response.degraded,
        [
            (h.id, h.score, h.explanation.to_dict(), [r.id for r in h.related])
            for h in response.hits
        ],
    ]


def test_fresh_restored_and_rolled_back_engines_agree_on_every_search_option(
    tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    """Regression: after a warm start or a rollback, a search limited to named sources got no
    vector results (the per-source id map was filled on the build path only)."""
    schema = demo_sources()[0]
    glossary = demo_glossary()

    def engine(fetch: Callable[[], SourceSchema]) -> SourceEngine:
        built = SourceEngine(
            schema.name, fetch, provider=onnx_provider, glossary=glossary,
            snapshots=SnapshotManager(LocalDirStore(tmp_path)),
        )  # fmt: skip
        built.init(wait=True)
        return built

    def down() -> SourceSchema:
        raise OSError("offline")

    fresh = engine(lambda: schema)
    first = fresh.generation
    assert first is not None
    restored = engine(down)
    SnapshotManager(LocalDirStore(tmp_path)).rollback(schema.name, first)
    rolled_back = engine(down)
    assert rolled_back.generation != first  # a new generation, copied from the first
    engines = {"fresh": fresh, "restored": restored, "rolled back": rolled_back}
    for question in demo_questions()[:6]:
        for options in _search_options(schema):
            expected = _answers(fresh, question, options)
            if options.get("mode") != "keyword":
                assert not expected[0], (question, options)
                signals = [set(h[2]["signals"]) for h in expected[1]]
                assert any("vector" in s for s in signals), (question, options)
            for name, other in engines.items():
                assert _answers(other, question, options) == expected, (name, question, options)
    for other in engines.values():
        other.destroy()
