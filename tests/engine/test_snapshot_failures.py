"""``index`` says when a save failed (exit code 1, the generation that still serves), and one
validation decides whether a generation is loadable for ``snapshot verify``, ``snapshot list``
and start-up alike."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schemaseek.cli.app import app
from schemaseek.config import SearchSettings
from schemaseek.engine import SourceEngine
from schemaseek.engine.persistence import open_snapshots
from schemaseek.snapshots.manager import SnapshotManager
from tests.engine.fakes import HashProvider, catalog
from tests.engine.test_cli_snapshots import SCHEMA, database, index

runner = CliRunner()


def test_index_fails_loudly_when_the_save_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk (or a dead S3 endpoint) used to exit 0, naming the previous generation and
    claiming the new document count."""
    db = tmp_path / "shop.db"
    url = database(db, SCHEMA)
    snapshots = tmp_path / "snapshots"
    [first] = index(url, snapshots)
    with sqlite3.connect(db) as connection:
        connection.execute("ALTER TABLE orders ADD COLUMN shipped_on TEXT")

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(SnapshotManager, "save", full_disk)
    args = ["index", "--database-url", url, "--snapshot-dir", str(snapshots)]
    failed = runner.invoke(app, [*args, "--json"])
    assert failed.exit_code == 1
    [line] = [json.loads(x) for x in failed.stdout.splitlines() if x.strip()]
    assert line["saved"] is False and "No space left" in line["save_error"]
    assert line["serving_generation"] == line["generation"] == first["generation"]
    plain = runner.invoke(app, args)
    assert plain.exit_code == 1
    assert "not saved" in plain.output and str(first["generation"]) in plain.output


def _generation(root: Path) -> tuple[SnapshotManager, Path]:
    """One saved generation of a small source (hash embeddings), and its manifest."""
    manager = open_snapshots(str(root), SearchSettings())
    schema = catalog(8)
    engine = SourceEngine("shop", lambda: schema, provider=HashProvider(), snapshots=manager)
    engine.init(wait=True)
    engine.destroy(5)
    [manifest] = list(root.rglob("manifest.json"))
    return manager, manifest


def test_verify_list_and_start_up_agree_on_an_edited_manifest(tmp_path: Path) -> None:
    """An edited ``documents`` count passed ``snapshot verify`` and was listed as complete,
    then failed at start-up."""
    root = tmp_path / "snapshots"
    _, path = _generation(root)
    manifest = json.loads(path.read_text())
    manifest["documents"] += 1
    path.write_text(json.dumps(manifest))

    verify = runner.invoke(app, ["snapshot", "verify", "--snapshot-dir", str(root), "--json"])
    assert verify.exit_code == 1
    [checked] = json.loads(verify.stdout)
    assert not checked["valid"] and "documents" in checked["status"]
    listed = runner.invoke(app, ["snapshot", "list", "--snapshot-dir", str(root), "--json"])
    [row] = json.loads(listed.stdout)
    assert row["status"] == checked["status"]

    schema = catalog(8)
    fresh = open_snapshots(str(root), SearchSettings())
    engine = SourceEngine("shop", lambda: schema, provider=HashProvider(), snapshots=fresh)
    engine.init(wait=True)  # the edited generation is refused: a cold start, then a save
    assert engine.generation != manifest["generation"]
    engine.destroy(5)
    [info] = [i for i in fresh.generations("shop") if i.generation == manifest["generation"]]
    assert fresh.problem(info) == checked["status"].removeprefix("invalid: ")


def test_a_generation_whose_vectors_disagree_is_invalid(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    manager, path = _generation(root)
    manifest = json.loads(path.read_text())
    manifest["vectors"] = 0
    path.write_text(json.dumps(manifest))
    [info] = manager.generations("shop")
    problem = open_snapshots(str(root), SearchSettings()).problem(info)
    assert problem is not None and "vectors" in problem
