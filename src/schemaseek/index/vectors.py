"""Filling an index's vector signal: reuse what is stored for unchanged content, embed the rest."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from schemaseek.config import SearchSettings
from schemaseek.documents import Document
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.index.reports import BuildProgress
from schemaseek.index.state import Components, name_vocabulary, vector_index
from schemaseek.query.state import IndexParts
from schemaseek.signals.name_bridge import NameVocabulary
from schemaseek.signals.vector import VectorIndex

__all__ = ["Embedded", "StoredVector", "embed_into", "fill_vectors"]

logger = logging.getLogger(__name__)

#: ``(doc_id, content_hash) -> vector | None``: a vector held for exactly that content.
StoredVector = Callable[[str, str], npt.NDArray[np.float32] | None]


class Embedded(Protocol):
    """An index whose vectors and name-word vectors a build may reuse."""

    def stored_vector(self, doc_id: str, digest: str) -> npt.NDArray[np.float32] | None: ...

    def stored_vocabulary(self) -> NameVocabulary | None: ...


def embed_into(
    parts: IndexParts,
    components: Components,
    provider: EmbeddingProvider | None,
    docs: Sequence[Document],
    previous: Sequence[Embedded] = (),
    progress: BuildProgress | None = None,
) -> int:
    """Give ``parts`` its vector signal over ``docs`` (see :func:`fill_vectors`) and, when
    that succeeds, the name bridge's vocabulary; ``previous`` lend what they already hold.
    Returns how many documents were embedded."""
    if provider is None or not docs:
        return 0
    stored = [other.stored_vector for other in previous]
    vector, embedded = fill_vectors(provider, components.settings, docs, stored, progress)
    if vector is not None:
        parts.vector = vector
        parts.vectors_ready = True
        known = [v for v in (o.stored_vocabulary() for o in previous) if v is not None]
        parts.name_vocabulary = name_vocabulary(components, docs, known)
    return embedded


def fill_vectors(
    provider: EmbeddingProvider,
    settings: SearchSettings,
    docs: Sequence[Document],
    stored: Sequence[StoredVector],
    progress: BuildProgress | None = None,
) -> tuple[VectorIndex | None, int]:
    """A vector index over ``docs`` and how many were embedded: a document's vector comes from
    the first of ``stored`` that holds one for its content hash, or from ``provider``. On an
    embedding failure it logs and returns ``(None, 0)``: the index serves degraded."""
    reusable: dict[str, npt.NDArray[np.float32]] = {}
    for doc in docs:
        for lookup in stored:
            vector = lookup(doc.id, doc.content_hash())
            if vector is not None:
                reusable[doc.id] = vector
                break
    todo = [d for d in docs if d.id not in reusable]
    try:
        fresh = (
            provider.embed(
                [d.embedding_text() for d in todo],
                (lambda n: progress("embedding", n, len(todo))) if progress else None,
            )
            if todo
            else None
        )
        index = vector_index(settings, provider.dimensions)
        if reusable:
            index.add(list(reusable), np.stack(list(reusable.values())))
        if fresh is not None:
            index.add([d.id for d in todo], fresh)
    except Exception as exc:  # degraded mode: keyword + glossary keep serving
        logger.warning(
            "embedding failed (%s); serving keyword + glossary until the next build", exc
        )
        return None, 0
    return index, len(todo)
