"""Snapshot files of the two heavy signals, so a warm start rebuilds neither.

The signals persist themselves (:meth:`VectorIndex.to_files
<schemaseek.signals.vector.VectorIndex.to_files>` / ``from_files``, :meth:`KeywordIndex.to_files
<schemaseek.signals.keyword.KeywordIndex.to_files>` / ``from_files``; file names and formats in
:mod:`schemaseek.signals.files`); this module only adapts them to a generation. A malformed
file raises :class:`~schemaseek.arrays.FileFormatError`, a
:class:`~schemaseek.errors.SnapshotError`, so :meth:`SnapshotManager.load
<schemaseek.snapshots.manager.SnapshotManager.load>` tries an older generation.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemaseek.signals.files import (
    GRAPH,
    KEYWORD_DIR,
    KEYWORD_OFFSETS,
    KEYWORD_STATE,
    KEYWORD_TEXTS,
    SLOTS,
    VECTORS,
)
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex
from schemaseek.snapshots.manager import VerifiedGeneration

__all__ = [
    "GRAPH",
    "KEYWORD_DIR",
    "KEYWORD_OFFSETS",
    "KEYWORD_STATE",
    "KEYWORD_TEXTS",
    "SLOTS",
    "VECTORS",
    "keyword_files",
    "restore_keyword",
    "restore_vectors",
    "vector_files",
]


def vector_files(index: VectorIndex) -> dict[str, bytes]:
    """The files of ``index`` (a consistent copy taken under its lock)."""
    return index.to_files()


def restore_vectors(
    generation: VerifiedGeneration,
    *,
    exact_threshold: int = 10_000,
    m: int = 16,
    ef_construction: int = 200,
    ef_search: int = 50,
    rescore_candidates: int = 400,
) -> VectorIndex:
    """A :class:`VectorIndex` over the generation's vectors (mapped, not copied) and graph
    (read from its local file when the store has one); the defaults are the constructor's."""
    return VectorIndex.from_files(
        generation.files,
        local_paths=generation.local_paths,
        exact_threshold=exact_threshold,
        m=m,
        ef_construction=ef_construction,
        ef_search=ef_search,
        rescore_candidates=rescore_candidates,
    )


def keyword_files(index: KeywordIndex) -> dict[str, bytes]:
    """The files of ``index``: a fresh on-disk tantivy index plus its bookkeeping."""
    return index.to_files()


def restore_keyword(
    files: Mapping[str, memoryview | bytes],
    field_weights: Mapping[str, float] | None = None,
    prefix_min_results: int = 5,
) -> KeywordIndex:
    """A :class:`KeywordIndex` opened on a private copy of the saved tantivy directory."""
    return KeywordIndex.from_files(
        files, field_weights=field_weights, prefix_min_results=prefix_min_results
    )
