"""On-disk cache of document embeddings for tests that need many real vectors.

Files live under ``$SCHEMASEEK_CACHE_DIR/test-embeddings/`` (default
``~/.cache/schemaseek``, outside the checkout so that fresh clones on the same machine — CI —
reuse them), named by the SHA-256 of the model id and the exact texts, so a change to either
misses the cache. Writes are atomic:
a temporary file in the same folder, then :func:`os.replace`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from schemaseek.config import default_cache_dir

CACHE_DIR = default_cache_dir() / "test-embeddings"


def cache_key(texts: list[str], model_id: str) -> str:
    """SHA-256 over the model id and every text, length-prefixed so no two lists collide."""
    digest = hashlib.sha256()
    for part in (model_id, *texts):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def cached_embeddings(texts: list[str], provider: Any, cache_dir: Path = CACHE_DIR) -> np.ndarray:
    """``provider.embed(texts)``, read from the cache when this exact list was embedded before."""
    path = cache_dir / f"{cache_key(texts, provider.model_id)}.npy"
    if path.is_file():
        cached: np.ndarray = np.load(path)
        if cached.shape[0] == len(texts) and cached.dtype == np.float32:
            return cached
    vectors: np.ndarray = np.ascontiguousarray(provider.embed(texts), dtype=np.float32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=path.stem, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, vectors)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return vectors
