"""DiskCachedProvider: only missing texts are embedded, shards persist, corruption is survived."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, Vectors
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.errors import EmbeddingError
from tests.evaluation.fakes import FakeProvider

TEXTS = ["table customer", "table orders", "table invoice line", "table customer"]


def test_is_a_provider(tmp_path: Path) -> None:
    cached = DiskCachedProvider(FakeProvider(), tmp_path)
    assert isinstance(cached, EmbeddingProvider)
    assert (cached.model_id, cached.dimensions) == ("fake-model", 8)


def test_second_run_makes_no_provider_calls(tmp_path: Path) -> None:
    first = FakeProvider()
    vectors = DiskCachedProvider(first, tmp_path).embed(TEXTS)
    assert first.embed_calls == 1
    assert first.embedded == TEXTS[:3]  # the repeated text is embedded once
    np.testing.assert_allclose(vectors, np.stack([first.vector(t) for t in TEXTS]))

    second = FakeProvider()
    again = DiskCachedProvider(second, tmp_path)
    progress: list[int] = []
    np.testing.assert_array_equal(again.embed(TEXTS, progress.append), vectors)
    assert second.embed_calls == 0
    assert progress == [len(TEXTS)]
    assert again.stats.hits == len(TEXTS)
    assert again.stats.misses == 0


def test_only_missing_texts_are_embedded_in_one_call(tmp_path: Path) -> None:
    DiskCachedProvider(FakeProvider(), tmp_path).embed(TEXTS[:2])
    provider = FakeProvider()
    cached = DiskCachedProvider(provider, tmp_path)
    progress: list[int] = []
    out = cached.embed(["new one", *TEXTS, "new two"], progress.append)
    assert provider.embed_calls == 1
    assert provider.embedded == ["new one", "table invoice line", "new two"]
    assert out.shape == (6, 8)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[0], provider.vector("new one"))
    assert progress[0] == 3 and progress[-1] == 6
    assert len(list(cached.directory.glob("*.npz"))) == 2


def test_model_id_namespaces_the_cache(tmp_path: Path) -> None:
    DiskCachedProvider(FakeProvider("model/a"), tmp_path).embed(TEXTS)
    other = FakeProvider("model/b")
    DiskCachedProvider(other, tmp_path).embed(TEXTS)
    assert other.embed_calls == 1
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 2


def test_query_passes_through(tmp_path: Path) -> None:
    provider = FakeProvider()
    cached = DiskCachedProvider(provider, tmp_path)
    np.testing.assert_array_equal(cached.embed_query("q"), provider.vector("q"))
    cached.embed_query("q")
    assert provider.query_calls == 2
    assert not tmp_path.joinpath(cached.directory.name).exists()  # nothing written


def test_empty_input(tmp_path: Path) -> None:
    provider = FakeProvider()
    assert DiskCachedProvider(provider, tmp_path).embed([]).shape == (0, 8)
    assert provider.embed_calls == 0


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"garbage, not a zip"),
        lambda p: p.write_bytes(p.read_bytes()[:40]),
        lambda p: np.savez(p, keys=np.array([b"x" * 64]), vectors=np.zeros((1, 3))),
    ],
    ids=["garbage", "truncated", "wrong-shape"],
)
def test_corrupt_shard_is_rebuilt_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: object
) -> None:
    DiskCachedProvider(FakeProvider(), tmp_path).embed(TEXTS)
    (shard,) = next(tmp_path.iterdir()).glob("*.npz")
    damage(shard)  # type: ignore[operator]

    provider = FakeProvider()
    with caplog.at_level(logging.WARNING, logger="schemaseek.embedding.disk_cache"):
        cached = DiskCachedProvider(provider, tmp_path)
        assert shard.exists()  # nothing is read until the first texts are embedded
        vectors = cached.embed(TEXTS)
    assert "unreadable" in caplog.text
    assert not shard.exists()
    assert provider.embed_calls == 1
    np.testing.assert_allclose(vectors[1], provider.vector(TEXTS[1]))

    third = FakeProvider()
    DiskCachedProvider(third, tmp_path).embed(TEXTS)
    assert third.embed_calls == 0  # rebuilt


def test_many_shards_are_compacted(tmp_path: Path) -> None:
    provider = FakeProvider()
    cached = DiskCachedProvider(provider, tmp_path, max_shards=3)
    for i in range(5):
        cached.embed([f"text {i}"])
    shards = list(cached.directory.glob("*.npz"))
    assert len(shards) <= 3
    fresh = FakeProvider()
    DiskCachedProvider(fresh, tmp_path).embed([f"text {i}" for i in range(5)])
    assert fresh.embed_calls == 0


def test_no_temporary_files_remain(tmp_path: Path) -> None:
    cached = DiskCachedProvider(FakeProvider(), tmp_path)
    cached.embed(TEXTS)
    assert [p.suffix for p in cached.directory.iterdir()] == [".npz"]


def test_wrong_provider_shape_is_an_error(tmp_path: Path) -> None:
    class Short(FakeProvider):
        def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
            return np.zeros((1, 8), dtype=np.float32)

    with pytest.raises(EmbeddingError, match="returned shape"):
        DiskCachedProvider(Short(), tmp_path).embed(["a", "b"])


def test_unwritable_directory_still_embeds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    provider = FakeProvider()
    with caplog.at_level(logging.WARNING, logger="schemaseek.embedding.disk_cache"):
        out = DiskCachedProvider(provider, blocker).embed(TEXTS)
    assert out.shape == (4, 8)
    assert "cannot write the embedding cache" in caplog.text
