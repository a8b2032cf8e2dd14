"""Generations: layout, manifest, verification with fallback, fingerprints, rollback."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from schemaseek.engine import SourceEngine
from schemaseek.snapshots.fingerprint import EmbeddingFingerprint, fingerprint_of
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.manifest import MANIFEST, Manifest, SnapshotError
from schemaseek.snapshots.memory import MemoryStore
from schemaseek.snapshots.store import open_store
from schemaseek.sources.base import SourceSchema
from tests.engine.fakes import HashProvider, catalog
from tests.snapshots.conftest import start

QUERIES = ["customer payment", "warehouse stock", "royalty contract", "invoice tax refund"]


def results(engine: object) -> list[list[str]]:
    return [engine.search(q, limit=5).ids() for q in QUERIES]  # type: ignore[attr-defined]


def test_layout_and_manifest(tmp_path: Path) -> None:
    manager = SnapshotManager(LocalDirStore(tmp_path))
    provider = HashProvider()
    engine = start(manager, catalog(50), provider)
    fp = fingerprint_of(engine.provider)
    folder = tmp_path / "v1" / "shop" / fp.key / str(engine.generation)
    assert folder.is_dir() and (folder / MANIFEST).is_file()
    manifest = Manifest.from_json((folder / MANIFEST).read_bytes())
    assert manifest.documents == manifest.vectors == 50
    assert manifest.model_id == "fake-hash-model" and manifest.dimensions == 16
    assert manifest.schema_hash == catalog(50).schema_hash
    raw = json.loads((folder / MANIFEST).read_bytes())
    assert {"created_at", "files", "schema_hash", "model_id", "dimensions", "documents"} <= set(raw)
    for name, entry in manifest.files.items():
        assert (folder / name).stat().st_size == entry.size
    assert "vectors.npy" in manifest.files and "documents.bin" in manifest.files
    assert not list(tmp_path.rglob("*.pkl")) and not list(tmp_path.rglob(".tmp-*"))
    engine.destroy()


def test_warm_start_makes_no_embedding_call_and_answers_the_same() -> None:
    manager = SnapshotManager(MemoryStore())
    first = start(manager, catalog(120))
    before = results(first)
    first.destroy()
    provider = HashProvider()
    second = start(manager, catalog(120), provider)
    assert provider.embed_calls == 0
    assert results(second) == before
    assert second.last_report is not None and second.last_report.embedded == 0
    second.destroy()


def test_corrupt_byte_in_any_file_falls_back_with_a_clear_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manager = SnapshotManager(LocalDirStore(tmp_path))
    old = start(manager, catalog(40))
    old_results, old_generation = results(old), old.generation
    old.destroy()
    new = start(manager, catalog(40, salt="changed"))
    new_generation = new.generation
    new.destroy()
    folder = next(tmp_path.rglob(str(new_generation)))
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert len(names) > 10
    for name in names:
        if name == MANIFEST:
            continue
        path = folder / name
        original = path.read_bytes()
        flipped = bytearray(original)
        flipped[len(flipped) // 2] ^= 0x01
        path.write_bytes(bytes(flipped))
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            engine = start(SnapshotManager(LocalDirStore(tmp_path)), catalog(40), HashProvider())
        assert engine.generation != new_generation
        assert f"generation {new_generation}" in caplog.text and "rejected" in caplog.text
        assert name in caplog.text and "SHA-256" in caplog.text
        engine.destroy()
        path.write_bytes(original)
    # intact again: the newest generation loads
    provider = HashProvider()
    engine = start(SnapshotManager(LocalDirStore(tmp_path)), catalog(40, salt="changed"), provider)
    assert engine.generation == new_generation and provider.embed_calls == 0
    engine.destroy()
    assert old_results and old_generation


def test_truncated_and_missing_files_and_bad_manifests() -> None:
    store = MemoryStore()
    manager = SnapshotManager(store)
    engine = start(manager, catalog(30))
    prefix = next(k for k in store.stored_keys() if k.endswith(MANIFEST)).rsplit("/", 1)[0]
    info = manager.generations("shop")[0]
    manager.verify(info)
    data = bytes(store.read(f"{prefix}/vectors.npy"))
    store.put(f"{prefix}/vectors.npy", data[:-4])
    with pytest.raises(SnapshotError, match=r"vectors\.npy has"):
        SnapshotManager(store).verify(info)
    store.delete(f"{prefix}/vectors.npy")
    with pytest.raises(SnapshotError, match=r"vectors\.npy is missing"):
        SnapshotManager(store).verify(SnapshotManager(store).generations("shop")[0])
    store.put(f"{prefix}/{MANIFEST}", b"{not json")
    assert "malformed" in (SnapshotManager(store).generations("shop")[0].error or "")
    store.delete(f"{prefix}/{MANIFEST}")
    assert SnapshotManager(store).generations("shop")[0].error == "incomplete: no manifest"
    engine.destroy()
    provider = HashProvider()
    cold = start(SnapshotManager(store), catalog(30), provider)
    assert provider.embedded_documents == 30  # nothing loadable: cold start
    cold.destroy()


def test_fingerprint_change_forces_a_full_re_embed(caplog: pytest.LogCaptureFixture) -> None:
    store = MemoryStore()
    start(SnapshotManager(store), catalog(25)).destroy()
    for changed in (
        HashProvider(dimensions=24),
        HashProvider(model_id="another-model"),
    ):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            engine = start(SnapshotManager(store), catalog(25), changed)
        # neither documents' nor name words' vectors of another space are ever reused
        assert changed.embedded_documents == 25 and changed.embedded_words > 0
        assert "another embedding fingerprint" in caplog.text
        engine.destroy()
    prefixed = HashProvider()
    prefixed.query_prefix = "query: "
    engine = start(SnapshotManager(store), catalog(25), prefixed)
    assert prefixed.embedded_documents == 25
    engine.destroy()
    base = fingerprint_of(HashProvider())
    assert len({base.key, fingerprint_of(prefixed).key}) == 2
    other_format = EmbeddingFingerprint(**{**base.to_dict(), "document_format": "x"})
    assert other_format.key != base.key


def test_rollback_makes_an_old_generation_newest() -> None:
    manager = SnapshotManager(MemoryStore())
    first = start(manager, catalog(30))
    old_generation, old_results = first.generation, results(first)
    first.destroy()
    second = start(manager, catalog(30, salt="v2 album"))
    second.destroy()
    rolled = manager.rollback("shop", str(old_generation))
    assert rolled.rolled_back_from == old_generation and rolled.generation != old_generation
    provider = HashProvider()
    engine = snapshot_only(manager, provider)
    assert engine.generation == rolled.generation and results(engine) == old_results
    assert provider.embed_calls == 0
    engine.destroy()
    with pytest.raises(SnapshotError, match="no generation"):
        manager.rollback("shop", "nope")


def snapshot_only(manager: SnapshotManager, provider: HashProvider) -> SourceEngine:
    """An engine whose live source cannot be fetched: it serves the snapshot alone."""

    def down() -> SourceSchema:
        raise OSError("source unreachable")

    return start(manager, down, provider)


def test_serves_from_snapshot_when_the_source_is_down() -> None:
    manager = SnapshotManager(MemoryStore())
    start(manager, catalog(20)).destroy()
    engine = snapshot_only(manager, HashProvider())
    assert engine.state.value == "ready" and engine.search("customer").hits
    assert engine.last_report is not None and "unreachable" in (engine.last_report.error or "")
    engine.destroy()


def test_open_store_picks_the_backend(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path), LocalDirStore)
    assert open_store("memory://t1") is open_store("memory://t1")


def test_malformed_signal_json_is_a_snapshot_error() -> None:
    """A broken keyword or vector state file makes the loader try an older generation
    (SnapshotError), not crash with a JSON or key error."""
    from schemaseek.config import SearchSettings
    from schemaseek.errors import SnapshotError
    from schemaseek.index.files import decode_keyword
    from schemaseek.signals.files import KEYWORD_STATE
    from schemaseek.signals.keyword import KeywordIndex

    files = {n: memoryview(b) for n, b in KeywordIndex().to_files().items()}
    files[KEYWORD_STATE] = memoryview(b"{not json")
    with pytest.raises(SnapshotError, match="keyword files are malformed"):
        decode_keyword(files, SearchSettings())
