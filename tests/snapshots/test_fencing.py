"""Fencing tokens checked by the store itself, without Redis: a save carrying a token older
than one registered since is refused, on a directory and in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemaseek.errors import SnapshotError, StaleTokenError
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.memory import MemoryStore
from schemaseek.snapshots.store import SnapshotStore
from tests.engine.fakes import HashProvider, catalog
from tests.snapshots.conftest import start


@pytest.fixture(params=["directory", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SnapshotStore:
    return LocalDirStore(tmp_path) if request.param == "directory" else MemoryStore()


def test_a_stale_token_cannot_publish(store: SnapshotStore) -> None:
    manager = SnapshotManager(store)
    engine = start(manager, catalog(20))
    fingerprint = engine.fingerprint
    assert fingerprint is not None
    files = engine.index.export_files()

    def save(token: int | None) -> str:
        manifest = manager.save(
            "shop", fingerprint, files, schema_hash="h", documents=20, vectors=20,
            fencing_token=token,
        )  # fmt: skip
        return manifest.generation

    assert manager.highest_token("shop") == 0
    assert manager.register_token("shop", 5) == 5
    before = {g.generation for g in manager.generations("shop")}
    with pytest.raises(StaleTokenError, match="token 3: the store has seen token 5"):
        save(3)
    assert {g.generation for g in manager.generations("shop")} == before  # nothing landed
    kept = save(5)
    assert manager.find("shop", kept).manifest.extra["fencing_token"] == 5  # type: ignore[union-attr]
    assert manager.register_token("shop", 9) == 9
    with pytest.raises(StaleTokenError):
        manager.register_token("shop", 7)  # tokens only go up
    with pytest.raises(StaleTokenError):
        save(5)
    save(None)  # an unfenced writer (a single process without Redis) is not checked
    engine.destroy()


def test_an_engine_save_carries_its_token_and_reports_a_refusal(store: SnapshotStore) -> None:
    manager = SnapshotManager(store)
    schemas = [catalog(20), catalog(20, salt="changed")]
    engine = start(manager, lambda: schemas[0], HashProvider())
    served = engine.generation
    schemas[0] = schemas[1]
    manager.register_token("shop", 4)
    engine.save_token = 2
    report = engine.refresh().result(30)
    assert "fencing token 2" in str(report.save_error)
    assert engine.generation == served  # the refused generation is not the engine's
    engine.save_token = 4
    schemas[0] = catalog(20, salt="again")
    report = engine.refresh().result(30)
    assert report.save_error is None and engine.generation != served
    assert manager.find("shop", engine.generation or "").manifest.extra["fencing_token"] == 4  # type: ignore[union-attr]
    engine.destroy()


def test_a_malformed_fence_is_an_error(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path)
    store.put("fences/shop.json", b"{}")
    with pytest.raises(SnapshotError, match="malformed"):
        SnapshotManager(store).highest_token("shop")
