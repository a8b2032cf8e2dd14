"""Local engines (:mod:`schemaseek.engine.local`): what the command line and ``mcp`` serve from.

The real model embeds; a counting wrapper inside the engines says how many documents it did.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from schemaseek.config import SearchSettings
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.engine.local import ORIGIN_FILE, LocalEngines, LocalSource, file_digest, store_key
from schemaseek.glossary import Glossary, GlossaryEntry
from schemaseek.sources.demo import demo_files
from schemaseek.sources.graphql import load_sdl

QUESTION = "royalty payments for Sony"


def sdl_source(path: Path, name: str = "music_api") -> LocalSource:
    return LocalSource(name, lambda: load_sdl(path, name), f"sdl:{path}", file_digest(path))


@pytest.fixture()
def sdl(tmp_path: Path) -> Path:
    target = tmp_path / "schema.graphql"
    shutil.copy(demo_files()[0], target)
    return target


def engines_of(
    sources: Sequence[LocalSource],
    store: Path,
    provider: object,
    glossary: Glossary | None = None,
) -> LocalEngines:
    return LocalEngines(
        sources,
        glossary=glossary or Glossary(),
        settings=SearchSettings(),
        provider=provider,  # type: ignore[arg-type]
        store_root=store,
    )


def run(engines: LocalEngines) -> list[str]:
    """Start, wait for vectors, answer the question; the ids, best first."""
    engines.start(wait_for_vectors=True)
    try:
        return list(engines.search(QUESTION).ids())
    finally:
        engines.close()


def test_second_start_on_an_unchanged_file_embeds_nothing(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    store = tmp_path / "store"
    first = engines_of([sdl_source(sdl)], store, onnx_provider)
    cold = run(first)
    assert first.embedded_documents > 50 and first.warm == []
    recorded = json.loads((store / store_key(sdl_source(sdl)) / ORIGIN_FILE).read_text())
    assert recorded["generation"] == first.reports()[0].generation

    second = engines_of([sdl_source(sdl)], store, onnx_provider)
    assert run(second) == cold
    assert second.embedded_documents == 0 and second.warm == ["music_api"]
    assert second.counter is not None and second.counter.embed_calls == 0


def test_a_changed_file_embeds_only_what_changed(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    store = tmp_path / "store"
    first = engines_of([sdl_source(sdl)], store, onnx_provider)
    run(first)
    added = '\n"""A label that releases records."""\ntype RecordLabel { name: String }\n'
    sdl.write_text(sdl.read_text() + added)
    changed = engines_of([sdl_source(sdl)], store, onnx_provider)
    ids = run(changed)
    assert changed.warm == []  # the fingerprint changed: the file was read again
    assert 0 < changed.embedded_documents < first.embedded_documents // 4
    assert ids  # still answers
    third = engines_of([sdl_source(sdl)], store, onnx_provider)
    run(third)
    assert third.warm == ["music_api"] and third.embedded_documents == 0


def test_sources_of_the_same_name_from_different_files_never_share(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    other = tmp_path / "elsewhere" / "schema.graphql"
    other.parent.mkdir()
    shutil.copy(sdl, other)
    assert store_key(sdl_source(sdl)) != store_key(sdl_source(other))
    store = tmp_path / "store"
    run(engines_of([sdl_source(sdl)], store, onnx_provider))
    elsewhere = engines_of([sdl_source(other)], store, onnx_provider)
    run(elsewhere)
    assert elsewhere.warm == []


def test_a_changed_glossary_is_not_served_from_the_old_generation(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    store = tmp_path / "store"
    run(engines_of([sdl_source(sdl)], store, onnx_provider))
    entry = GlossaryEntry(terms=("label deals",), targets=("AbacusContract",))
    glossed = engines_of([sdl_source(sdl)], store, onnx_provider, Glossary(entries=(entry,)))
    run(glossed)
    assert glossed.warm == []  # documents carry glossary context: they were derived again


def test_a_damaged_recorded_generation_reads_the_source_instead(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    store = tmp_path / "store"
    cold = run(engines_of([sdl_source(sdl)], store, onnx_provider))
    folder = store / store_key(sdl_source(sdl))
    recorded = json.loads((folder / ORIGIN_FILE).read_text())
    recorded["generation"] = "20000101T000000000000Z-gone00"
    (folder / ORIGIN_FILE).write_text(json.dumps(recorded))
    again = engines_of([sdl_source(sdl)], store, onnx_provider)
    assert run(again) == cold
    assert again.warm == []  # started from the newest valid generation, not the record


class SlowProvider:
    """The real model, held back until released: vectors arrive when the test says so."""

    def __init__(self, inner: OnnxEmbeddingProvider) -> None:
        self.inner = inner
        self.release = threading.Event()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        self.release.wait(60)
        return self.inner.embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


def test_without_waiting_keyword_answers_come_first_then_hybrid(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    slow = SlowProvider(onnx_provider)
    engines = engines_of([sdl_source(sdl)], tmp_path / "store", slow)
    engines.start(wait_for_vectors=False)
    try:
        early = engines.search(QUESTION)
        assert early.degraded and engines.building and early.hits
        slow.release.set()
        assert engines.wait(timeout=120)
        later = engines.search(QUESTION)
        assert not later.degraded and not engines.building
    finally:
        engines.close()


def test_close_during_the_build_cancels_it(
    sdl: Path, tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    slow = SlowProvider(onnx_provider)
    engines = engines_of([sdl_source(sdl)], tmp_path / "store", slow)
    engines.start(wait_for_vectors=False)
    closing = threading.Thread(target=engines.close)
    closing.start()
    slow.release.set()  # the batch in flight finishes; the next one is never started
    closing.join(60)
    assert not closing.is_alive()
    assert not (tmp_path / "store" / store_key(sdl_source(sdl)) / ORIGIN_FILE).exists()


def test_keyword_only_engines_load_no_model_and_keep_nothing(sdl: Path, tmp_path: Path) -> None:
    engines = engines_of([sdl_source(sdl)], tmp_path / "store", None)
    engines.start(wait_for_vectors=True)
    try:
        answer = engines.search(QUESTION, mode="keyword")
        assert answer.hits and engines.embedded_documents == 0
    finally:
        engines.close()
    assert not (tmp_path / "store").exists()
