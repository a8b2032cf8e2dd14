"""With the real model: a restored engine answers the demo questions exactly as the engine that
saved it, without embedding a single document."""

from __future__ import annotations

from pathlib import Path

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
