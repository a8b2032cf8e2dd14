"""Phase two's embedding work for one engine: documents embedded batch by batch (cancellation
checked and progress told between provider calls) and a complete vector index built from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from schemaseek.documents import Document
from schemaseek.embedding.base import EmbeddingProvider, Vectors
from schemaseek.errors import EmbeddingError
from schemaseek.signals.vector import VectorIndex

__all__ = ["embed_batches", "fill_vector_index"]


def embed_batches(
    provider: EmbeddingProvider,
    docs: Sequence[Document],
    batch: int,
    *,
    check_cancel: Callable[[], None],
    progress: Callable[[int, int], None],
) -> Vectors:
    """The vectors of ``docs``, ``batch`` documents per provider call; ``check_cancel`` runs
    before each call (it raises to stop), ``progress(done, total)`` after each."""
    dimensions = provider.dimensions
    out = np.empty((len(docs), dimensions), dtype=np.float32)
    progress(0, len(docs))
    for start in range(0, len(docs), batch):
        check_cancel()
        chunk = docs[start : start + batch]
        rows = np.asarray(provider.embed([d.embedding_text() for d in chunk]))
        if rows.shape != (len(chunk), dimensions):
            raise EmbeddingError(f"the provider returned shape {rows.shape} for {len(chunk)}")
        out[start : start + len(chunk)] = rows
        progress(start + len(chunk), len(docs))
    return out


def fill_vector_index(
    index: VectorIndex, ids: list[str], vectors: Vectors, check_cancel: Callable[[], None]
) -> VectorIndex:
    """``index`` (empty) with ``vectors`` added under ``ids``, its graph built when it holds
    enough vectors to search through one."""
    index.add(ids, vectors)
    if len(index) >= index.exact_threshold:
        check_cancel()
        index.build()
    return index
