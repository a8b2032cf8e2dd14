"""``schemaseek index|search --snapshot-dir`` and ``schemaseek snapshot list|verify|rollback``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from schemaseek.cli.app import app
from schemaseek.sources.sql import load_sql

runner = CliRunner()

SCHEMA = """
CREATE TABLE customers (
  -- People who buy records.
  id INTEGER PRIMARY KEY,
  name TEXT, -- full name
  country TEXT
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER REFERENCES customers(id),
  total REAL -- order value in EUR
);
CREATE TABLE royalty_payment (
  -- Money paid to artists under a contract.
  id INTEGER PRIMARY KEY,
  amount REAL,
  paid_on TEXT
);
"""


def database(path: Path, script: str) -> str:
    with sqlite3.connect(path) as connection:
        connection.executescript(script)
    return f"sqlite:///{path}"


def index(url: str, snapshots: Path) -> list[dict[str, Any]]:
    result = runner.invoke(
        app, ["index", "--database-url", url, "--snapshot-dir", str(snapshots), "--json"]
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_index_twice_then_change_one_column(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    url = database(db, SCHEMA)
    snapshots = tmp_path / "snapshots"
    [first] = index(url, snapshots)
    assert set(first) >= {"source", "documents", "embedded", "reused", "generation", "took_ms"}
    assert first["embedded"] == first["documents"] and first["reused"] == 0
    [second] = index(url, snapshots)
    assert second["embedded"] == 0 and second["reused"] == first["documents"]
    assert second["generation"] == first["generation"]

    before = {d.id: d.content_hash() for d in load_sql(url).documents}
    with sqlite3.connect(db) as connection:
        connection.execute("ALTER TABLE orders ADD COLUMN shipped_on TEXT")
    after = {d.id: d.content_hash() for d in load_sql(url).documents}
    affected = sum(1 for d, h in after.items() if before.get(d) != h)
    assert affected >= 1
    [third] = index(url, snapshots)
    assert third["embedded"] == affected and third["reused"] == third["documents"] - affected
    assert third["generation"] != first["generation"]

    result = runner.invoke(
        app,
        [
            "search",
            "royalties paid to artists",
            "--database-url",
            url,
            "--snapshot-dir",
            str(snapshots),
            "--json",
            "-n",
            "3",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["id"] == "royalty_payment"

    listed = runner.invoke(app, ["snapshot", "list", "--snapshot-dir", str(snapshots), "--json"])
    rows = json.loads(listed.stdout)
    assert [r["generation"] for r in rows] == [third["generation"], first["generation"]]
    assert all(r["status"] == "valid" for r in rows)

    verified = runner.invoke(
        app, ["snapshot", "verify", "--snapshot-dir", str(snapshots), "--json"]
    )
    assert verified.exit_code == 0 and all(r["valid"] for r in json.loads(verified.stdout))

    rolled = runner.invoke(
        app,
        [
            "snapshot",
            "rollback",
            str(first["source"]),
            str(first["generation"]),
            "--snapshot-dir",
            str(snapshots),
            "--json",
        ],
    )
    assert rolled.exit_code == 0, rolled.output
    [row] = json.loads(rolled.stdout)
    assert row["rolled_back_from"] == first["generation"]
    # the rolled-back generation lacks the new column; an explicit index applies the live
    # source over the rollback: only that table is embedded again
    [fourth] = index(url, snapshots)
    assert fourth["embedded"] == affected

    vectors = next(snapshots.rglob("vectors.npy"))
    vectors.write_bytes(vectors.read_bytes()[:-1] + b"\x00")
    bad = runner.invoke(app, ["snapshot", "verify", "--snapshot-dir", str(snapshots)])
    assert bad.exit_code == 1 and "invalid" in bad.stdout


def test_snapshot_dir_is_required(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("SCHEMASEEK_SNAPSHOT_DIR", raising=False)
    result = runner.invoke(app, ["snapshot", "list"])
    assert result.exit_code != 0
