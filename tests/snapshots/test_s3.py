"""The S3 store through the real boto3 client against moto's server mode on a loopback port."""

from __future__ import annotations

import logging

import pytest

boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")

from schemaseek.snapshots.manager import SnapshotManager  # noqa: E402
from schemaseek.snapshots.manifest import MANIFEST  # noqa: E402
from schemaseek.snapshots.retention import DAY  # noqa: E402
from schemaseek.snapshots.s3 import S3Store  # noqa: E402
from schemaseek.snapshots.store import open_store  # noqa: E402
from tests.engine.fakes import HashProvider, catalog  # noqa: E402
from tests.helpers.services import bucket, s3_endpoint  # noqa: E402, F401 (fixture)
from tests.snapshots.conftest import start  # noqa: E402

BUCKET = "schemaseek-snapshots"


@pytest.fixture()
def endpoint(s3_endpoint: str) -> str:  # noqa: F811
    return s3_endpoint


@pytest.fixture()
def client(endpoint: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    with bucket(endpoint, BUCKET, monkeypatch) as s3:
        yield s3


def keys(s3, prefix: str = "") -> list[str]:  # type: ignore[no-untyped-def]
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def test_round_trip(client, endpoint: str) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"s3://{BUCKET}/team/search", s3_endpoint_url=endpoint)
    assert isinstance(store, S3Store)
    first = start(SnapshotManager(store), catalog(60))
    expected = [first.search(q, limit=5).ids() for q in ("customer payment", "album release")]
    first.destroy()
    stored = keys(client, "team/search/v1/shop/")
    assert any(k.endswith("/" + MANIFEST) for k in stored) and any(
        k.endswith("vectors.npy") for k in stored
    )
    provider = HashProvider()
    again = start(
        SnapshotManager(S3Store(BUCKET, "team/search", endpoint_url=endpoint)),
        catalog(60),
        provider,
    )
    assert provider.embed_calls == 0 and again.generation == first.generation
    assert [
        again.search(q, limit=5).ids() for q in ("customer payment", "album release")
    ] == expected
    again.destroy()


def test_partial_upload_is_skipped_and_corruption_rejected(  # type: ignore[no-untyped-def]
    client, endpoint: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = S3Store(BUCKET, "", endpoint_url=endpoint)
    good = start(SnapshotManager(store), catalog(20))
    good.destroy()
    newer = start(SnapshotManager(store), catalog(20, salt="new"))
    newer.destroy()
    fingerprint = SnapshotManager(store).generations("shop")[0].fingerprint
    key = f"v1/shop/{fingerprint}/{newer.generation}/documents.bin"
    data = bytearray(client.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    data[3] ^= 0xFF
    client.put_object(Bucket=BUCKET, Key=key, Body=bytes(data))
    # an interrupted upload: data files without a manifest (and the newest id)
    partial = f"v1/shop/{fingerprint}/29990101T000000000000Z-abcdef/vectors.npy"
    client.put_object(Bucket=BUCKET, Key=partial, Body=b"x")
    with caplog.at_level(logging.WARNING, logger="schemaseek"):
        engine = start(SnapshotManager(store), catalog(20), HashProvider())
    assert engine.generation == good.generation
    assert "documents.bin fails its SHA-256 check" in caplog.text
    assert "incomplete: no manifest" in caplog.text
    engine.destroy()


def test_retention_prunes_in_the_bucket(client, endpoint: str) -> None:  # type: ignore[no-untyped-def]
    clock = {"now": 1_800_000_000.0}
    store = S3Store(BUCKET, "ret", endpoint_url=endpoint)
    manager = SnapshotManager(store, clock=lambda: clock["now"])
    generations = []
    for step in range(4):
        engine = start(manager, catalog(8, salt=f"s{step}"), HashProvider())
        generations.append(engine.generation)
        engine.destroy()
        clock["now"] += 9 * DAY
    listed = [g.generation for g in manager.generations("shop")]
    # every earlier one was > 7 days old at the next save, but the floor keeps two valid
    assert listed == [generations[3], generations[2]]
    remaining = {k.split("/")[4] for k in keys(client, "ret/")}
    assert remaining == {generations[2], generations[3]}
