"""An on-disk cache of document vectors, so unchanged catalogs are not embedded twice.

:class:`DiskCachedProvider` wraps any provider. Each text's vector is stored under
``sha256(model_id + NUL + text)`` in ``<directory>/<model slug>/``, as shards: one ``.npz`` file
per write holding ``keys`` (hex digests, ``S64``) and ``vectors`` (``float32``, one row per key).
No pickle is involved (``allow_pickle=False``). A shard is written to a temporary file in the
same folder and moved into place with :func:`os.replace`, so readers never see half a shard.
Beyond ``max_shards`` shards, the next write merges everything into one.

Every shard is read when the first texts are embedded (never for a process that embeds nothing:
a warm start pays nothing for a large cache); one that cannot be read or does not fit the model
(wrong shape, dtype, non-finite values) is logged as a warning and deleted, and its texts are
embedded again when next asked for. ``embed`` embeds only the texts it has no vector for, in one
batched call; ``embed_query`` passes straight through (queries are cached in memory by
:class:`~schemaseek.embedding.cache.CachedQueryEmbedder`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schemaseek.embedding.base import EmbeddingProvider, ProgressCallback, ProviderWrapper, Vectors
from schemaseek.errors import EmbeddingError

__all__ = ["DiskCacheStats", "DiskCachedProvider", "model_slug"]

logger = logging.getLogger(__name__)

_STALE_TEMP_S = 3600.0


@dataclass(frozen=True, slots=True)
class DiskCacheStats:
    """Counters of a :class:`DiskCachedProvider`: texts served from disk or memory (``hits``),
    texts sent to the wrapped provider (``misses``), and calls to its ``embed``."""

    hits: int
    misses: int
    provider_calls: int
    stored: int


class DiskCachedProvider(ProviderWrapper):
    """Wraps ``provider`` so that document vectors persist in ``directory`` (module docstring).

    Args:
        provider: the provider to wrap; its ``model_id`` namespaces the cache.
        directory: the cache root (created on the first write).
        max_shards: shard count beyond which a write compacts all shards into one.
    """

    def __init__(
        self, provider: EmbeddingProvider, directory: str | Path, *, max_shards: int = 16
    ) -> None:
        super().__init__(provider)
        self.directory = Path(directory) / model_slug(provider.model_id)
        self.max_shards = max(1, max_shards)
        self._lock = threading.Lock()
        self._vectors: dict[str, Vectors] = {}
        self._shards: list[Path] = []
        self._hits = self._misses = self._provider_calls = 0
        self._loaded = False

    @property
    def stats(self) -> DiskCacheStats:
        """Current counters and the number of vectors held."""
        self._ensure_loaded()
        with self._lock:
            return DiskCacheStats(
                self._hits, self._misses, self._provider_calls, len(self._vectors)
            )

    def key(self, text: str) -> str:
        """The cache key of ``text`` for this model (hex SHA-256)."""
        payload = f"{self.provider.model_id}\x00{text}".encode()
        return hashlib.sha256(payload).hexdigest()

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        """Vectors of ``texts``: cached ones read back, the rest embedded in one call and stored."""
        keys = [self.key(t) for t in texts]
        self._ensure_loaded()
        with self._lock:
            missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors}
        served = sum(1 for k in keys if k not in missing)
        if progress is not None and served:
            progress(served)
        if missing:
            fresh = self._embed_missing(list(missing.values()), served, len(texts), progress)
            with self._lock:
                self._vectors.update(zip(missing, fresh, strict=True))
            self._write(list(missing), fresh)
        with self._lock:
            self._hits += served
            self._misses += len(missing)
            rows = [self._vectors[k] for k in keys]
        if not rows:
            return np.empty((0, self.dimensions), dtype=np.float32)
        return np.ascontiguousarray(np.stack(rows), dtype=np.float32)

    # -- embedding ----------------------------------------------------------------------------

    def _embed_missing(
        self, texts: list[str], served: int, total: int, progress: ProgressCallback | None
    ) -> Vectors:
        def forward(done: int) -> None:
            if progress is not None:
                progress(min(total, served + done))

        with self._lock:
            self._provider_calls += 1
        vectors = np.asarray(self.provider.embed(texts, forward), dtype=np.float32)
        if vectors.shape != (len(texts), self.dimensions):
            raise EmbeddingError(
                f"provider {self.model_id!r} returned shape {vectors.shape} for {len(texts)} "
                f"texts; expected ({len(texts)}, {self.dimensions})"
            )
        if progress is not None:
            progress(total)
        return vectors

    # -- storage ------------------------------------------------------------------------------

    def _ensure_loaded(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            self._load()

    def _load(self) -> None:
        if not self.directory.is_dir():
            return
        self._remove_stale_temps()
        for path in sorted(self.directory.glob("*.npz")):
            try:
                keys, vectors = self._read(path)
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
                logger.warning(
                    "embedding cache file %s is unreadable (%s); deleting it, its vectors "
                    "will be computed again",
                    path,
                    exc,
                )
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            self._vectors.update(zip(keys, vectors, strict=True))
            self._shards.append(path)

    def _read(self, path: Path) -> tuple[list[str], Vectors]:
        # Open the file here: np.load leaks its own handle when the archive is not a zip.
        with path.open("rb") as handle, np.load(handle, allow_pickle=False) as archive:
            raw_keys = archive["keys"]
            vectors = np.asarray(archive["vectors"])
        if raw_keys.ndim != 1 or raw_keys.dtype.kind != "S":
            raise ValueError(f"keys have dtype {raw_keys.dtype} and shape {raw_keys.shape}")
        if vectors.dtype != np.float32 or vectors.shape != (len(raw_keys), self.dimensions):
            raise ValueError(
                f"vectors have dtype {vectors.dtype} and shape {vectors.shape}; expected "
                f"float32 ({len(raw_keys)}, {self.dimensions})"
            )
        if not np.isfinite(vectors).all():
            raise ValueError("vectors hold non-finite values")
        keys = [k.decode("ascii") for k in raw_keys]
        if any(len(k) != 64 for k in keys):
            raise ValueError("a key is not a SHA-256 hex digest")
        return keys, vectors

    def _write(self, keys: list[str], vectors: Vectors) -> None:
        """Store a new shard, or all vectors in one shard when there are too many shards."""
        with self._lock:
            compact = len(self._shards) + 1 > self.max_shards
            if compact:
                keys = list(self._vectors)
                vectors = np.stack([self._vectors[k] for k in keys])
            old = list(self._shards)
        try:
            path = self._save(keys, vectors)
        except OSError as exc:
            logger.warning("cannot write the embedding cache in %s: %s", self.directory, exc)
            return
        with self._lock:
            if compact:
                for stale in old:
                    with contextlib.suppress(OSError):
                        stale.unlink()
                self._shards = [s for s in self._shards if s not in old]
            self._shards.append(path)

    def _save(self, keys: list[str], vectors: Vectors) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.npz"
        path = self.directory / name
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".shard-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(
                    handle,
                    keys=np.array(keys, dtype="S64"),
                    vectors=np.ascontiguousarray(vectors, dtype=np.float32),
                )
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; a cache is shared like any build output
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def _remove_stale_temps(self) -> None:
        """Delete temporary files left by writers that died more than an hour ago."""
        cutoff = time.time() - _STALE_TEMP_S
        for tmp in self.directory.glob(".shard-*.tmp"):
            with contextlib.suppress(OSError):
                if tmp.stat().st_mtime < cutoff:
                    tmp.unlink()


def model_slug(model_id: str) -> str:
    """A folder name for a model id: readable part plus a short hash (ids may hold '/')."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("._")[:60] or "model"
    return f"{readable}-{hashlib.sha256(model_id.encode()).hexdigest()[:8]}"
