"""Vector signal: a half-precision store plus an HNSW graph over 8-bit quantized vectors.

Every vector lives, unit-normalised, in a *store* of IEEE half floats (a faiss
``IndexScalarQuantizer`` with ``QT_fp16``: 2 bytes per dimension, one row per slot). Cosine
similarity is the inner product of the float32 question with the stored row; half precision
moves a cosine by at most ~1e-3 and halves both the memory and the bytes a scan reads.

* Below ``exact_threshold`` live vectors, search is one exact scan of the store.
* At or above it, a faiss ``IndexHNSWSQ`` (8-bit, one min/range per dimension) proposes
  ``max(limit, rescore_candidates)`` candidates (``efSearch`` widened to that many), re-scored
  on the store's fp16 codes inside faiss (an ``IndexRefine`` of graph and store, made per
  search in µs: 0.70 against 1.30 ms CPU at 100K when candidates were decoded first); scores
  returned are always those of the stored rows. Why 400: recall@10 against exact search on
  20,000 real spider2-snow column vectors (``tests/signals/test_vector_recall.py``): plain
  graph 0.84, re-scoring 100 / 200 / 320 / 400 candidates 0.94 / 0.98 / 0.993 / 0.994.

The graph is built lazily, on the first search at or above the threshold or on
:meth:`VectorIndex.build`, trained on the stored vectors. Later adds go into it incrementally.
Removing or replacing a vector leaves a tombstone (the graph cannot delete); tombstones are
excluded inside the graph search by an ``IDSelectorBitmap``. When they exceed 25 % of the
slots, the store is compacted and the graph dropped, to be rebuilt lazily.

Why 25,000: exact 0.23 / 0.46 / 1.21 ms CPU at 10K / 20K / 40K, graph 0.46 / 0.48 / 0.61 ms
(``bench/vector_crossover.py``); up to 25K the exact scan costs no more and keeps recall 1.

Threads: scans and re-scoring use faiss's SIMD kernels on the calling thread (numpy's OpenBLAS
pool stalls when another process holds a core), its OpenMP team set to one and restored after;
graph builds use all cores. Kernels: :mod:`schemaseek.signals.vector_kernels`. Saving and
reopening, graph included: :meth:`VectorIndex.to_files` / :meth:`.from_files`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from schemaseek.arrays import FileFormatError
from schemaseek.errors import EmbeddingError
from schemaseek.signals import files as signal_files
from schemaseek.signals.vector_kernels import (
    Vectors,
    checked_query,
    checked_rows,
    faiss,
    inner_products,
    omp_threads,
)

__all__ = ["TOMBSTONE_REBUILD_FRACTION", "VectorIndex", "Vectors", "faiss"]

TOMBSTONE_REBUILD_FRACTION = 0.25
_MIN_CAPACITY = 1024


class VectorIndex:
    """Cosine nearest-neighbour index over string ids.

    Args:
        dimensions: vector length; every added vector and query must have it.
        exact_threshold: live vectors below which search is an exact scan.
        m: HNSW links per node.
        ef_construction: HNSW candidate list size while inserting.
        ef_search: HNSW candidate list size while searching (at least the candidates fetched).
        rescore_candidates: graph candidates re-scored exactly per search (at least ``limit``).

    One lock serialises every method (a faiss graph must not be searched while it grows).
    """

    def __init__(
        self,
        dimensions: int,
        *,
        exact_threshold: int = 25_000,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 50,
        rescore_candidates: int = 400,
    ) -> None:
        if dimensions <= 0:
            raise EmbeddingError(f"vector dimensions must be positive, got {dimensions}")
        self.dimensions = dimensions
        self.exact_threshold = exact_threshold
        self.m = m
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.rescore_candidates = rescore_candidates
        self._lock = threading.RLock()
        self._store: Any = _new_store(dimensions)  # faiss fp16 rows; slot = position
        self._alive = np.zeros(0, dtype=bool)
        self._size = 0  # slots in use, live or dead
        self._slot_ids: list[str] = []
        self._slot_of: dict[str, int] = {}
        self._graph: Any = None  # faiss.IndexHNSWSQ once built
        self._bitmap: npt.NDArray[np.uint8] | None = None  # packed _alive, when tombstones
        self._centroid: Vectors | None = None  # mean of the live vectors, until a change

    # -- collection -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._slot_of))

    @property
    def graph_built(self) -> bool:
        """Whether the HNSW graph currently exists."""
        return self._graph is not None

    @property
    def tombstones(self) -> int:
        """Dead slots (removed or replaced vectors) not yet compacted away."""
        return self._size - len(self._slot_of)

    def vector(self, doc_id: str) -> Vectors | None:
        """The stored (normalised) vector of ``doc_id`` as float32, or None."""
        with self._lock:
            slot = self._slot_of.get(doc_id)
            return None if slot is None else self._rows(np.asarray([slot]))[0]

    def add(self, ids: Sequence[str], vectors: npt.ArrayLike) -> None:
        """Add or replace vectors; ``vectors`` has shape ``(len(ids), dimensions)``.

        Vectors are normalised to unit length (all-zero rows stay zero). Within one call
        the last duplicate id wins.
        """
        rows = checked_rows(vectors, len(ids), self.dimensions)
        if not len(ids):
            return
        with self._lock:
            start = self._size
            self._reserve(start + len(ids))
            self._store.add(rows)
            self._alive[start : start + len(ids)] = True
            self._size += len(ids)
            for offset, doc_id in enumerate(ids):
                old = self._slot_of.get(doc_id)
                if old is not None:
                    self._alive[old] = False
                self._slot_of[doc_id] = start + offset
                self._slot_ids.append(doc_id)
            if self._graph is not None:
                self._graph.add(self._rows(np.arange(start, start + len(ids))))
            self._after_change()

    def remove(self, ids: Iterable[str]) -> None:
        """Remove vectors by id; unknown ids are ignored."""
        with self._lock:
            for doc_id in ids:
                slot = self._slot_of.pop(doc_id, None)
                if slot is not None:
                    self._alive[slot] = False
            self._after_change()

    def build(self) -> None:
        """Build the HNSW graph now (normally done by the first large search)."""
        with self._lock:
            self._build_locked()

    # -- files ----------------------------------------------------------------------------

    def to_files(self) -> dict[str, bytes]:
        """The snapshot files of this index (:mod:`schemaseek.signals.files`), a consistent
        copy taken under the lock; the graph is included once built."""
        with self._lock:
            size = self._size
            rows = self._codes().view("<f2").reshape(size, self.dimensions)
            alive = self._alive[:size]
            slots = [d if alive[i] else None for i, d in enumerate(self._slot_ids[:size])]
            graph = None if self._graph is None else faiss.serialize_index(self._graph).tobytes()
        return signal_files.encode_vectors(self.dimensions, rows, slots, graph)

    @classmethod
    def from_files(
        cls,
        files: Mapping[str, memoryview | bytes],
        *,
        local_paths: Mapping[str, Path] | None = None,
        exact_threshold: int = 25_000,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 50,
        rescore_candidates: int = 400,
    ) -> VectorIndex:
        """The index saved by :meth:`to_files` (half-precision rows are taken as they are;
        float32 rows of older generations are converted); the graph is read with
        ``faiss.read_index`` from ``local_paths`` when the file has a local path. The other
        arguments are the constructor's.

        Raises:
            FileFormatError: (a :class:`~schemaseek.errors.SnapshotError`) a missing or
                malformed file, or files that disagree.
        """
        dimensions, rows, slots = signal_files.decode_vectors(files)
        index = cls(
            dimensions,
            exact_threshold=exact_threshold,
            m=m,
            ef_construction=ef_construction,
            ef_search=ef_search,
            rescore_candidates=rescore_candidates,
        )
        if rows.dtype == np.float16:  # the stored codes as they are, no re-quantising
            index._store.add_sa_codes(np.ascontiguousarray(rows).view(np.uint8))
        else:  # float32 (generations written before the half-precision store)
            index._store.add(np.ascontiguousarray(rows, dtype=np.float32))
        index._alive = np.fromiter((s is not None for s in slots), dtype=bool, count=len(slots))
        index._size = len(slots)
        index._slot_ids = [s or "" for s in slots]
        index._slot_of = {s: slot for slot, s in enumerate(slots) if s is not None}
        if len(index._slot_of) != int(index._alive.sum()):
            raise FileFormatError("vector slots name the same document twice")
        graph = signal_files.read_graph(files, local_paths)
        if graph is not None:
            if graph.ntotal != index._size or graph.d != dimensions:
                raise FileFormatError("the ANN graph does not match the vectors")
            graph.hnsw.efSearch = index.ef_search
            index._graph = graph
        return index

    # -- search ---------------------------------------------------------------------------

    def search(self, query: npt.ArrayLike, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` nearest ids with exact cosine similarities, best first."""
        q = checked_query(query, self.dimensions)
        with self._lock:
            live = len(self._slot_of)
            if live == 0 or limit <= 0:
                return []
            if live < self.exact_threshold:
                return self._exact_locked(q, limit)
            if self._graph is None:
                self._build_locked()
            return self._graph_locked(q, limit)

    def search_among(
        self, query: npt.ArrayLike, ids: Sequence[str], limit: int
    ) -> list[tuple[str, float]]:
        """The ``limit`` nearest of ``ids`` (those held) with exact cosine similarities, best
        first: a search scoped to part of the index without scanning the rest."""
        q = checked_query(query, self.dimensions)
        with self._lock:
            slots = np.asarray(
                [slot for i in ids if (slot := self._slot_of.get(i)) is not None], dtype=np.int64
            )
            if slots.size == 0 or limit <= 0:
                return []
            scores = inner_products(self._rows(slots), q)
            k = min(limit, slots.size)
            top = np.argpartition(-scores, k - 1)[:k] if k < slots.size else np.arange(k)
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(self._slot_ids[int(slots[t])], float(scores[t])) for t in top.tolist()]

    def scores_all(self, query: npt.ArrayLike) -> Vectors:
        """Exact cosine of ``query`` with every live vector (slot order, i.e. insertion)."""
        q = checked_query(query, self.dimensions)
        with self._lock:
            scores = inner_products(self._rows(np.arange(self._size)), q)
            if self.tombstones:
                scores = scores[self._alive[: self._size]]
            return scores

    def sample_scores(self, query: npt.ArrayLike, sample: int) -> Vectors:
        """Exact cosine of ``query`` with at most ``sample`` live vectors, evenly strided over
        the store: a cheap view of the query's background score distribution."""
        q = checked_query(query, self.dimensions)
        with self._lock:
            if sample <= 0:
                return np.zeros(0, dtype=np.float32)
            step = max(1, self._size // sample)
            scores = inner_products(self._rows(np.arange(0, self._size, step)), q)
            if self.tombstones:
                scores = scores[self._alive[: self._size : step]]
            return scores

    def centroid(self) -> Vectors:
        """The mean of the live vectors (zeros when there are none); kept until a change."""
        with self._lock:
            if self._centroid is None:
                live = self._rows(np.flatnonzero(self._alive[: self._size]))
                mean = live.mean(axis=0) if len(live) else np.zeros(self.dimensions)
                self._centroid = np.asarray(mean, dtype=np.float32)
            return self._centroid

    def _exact_locked(self, q: Vectors, limit: int) -> list[tuple[str, float]]:
        k = min(limit, len(self._slot_of))
        params = faiss.SearchParameters()
        if self.tombstones:
            params.sel = self._selector()
        with omp_threads(1):
            scores, labels = self._store.search(q[None, :], k, params=params)
        return [
            (self._slot_ids[int(slot)], float(score))
            for slot, score in zip(labels[0].tolist(), scores[0].tolist(), strict=True)
            if slot >= 0
        ]

    def _selector(self) -> Any:
        """A faiss selector of the live slots (kept until the next change)."""
        if self._bitmap is None:
            self._bitmap = np.packbits(self._alive[: self._size], bitorder="little")
        return faiss.IDSelectorBitmap(self._size, faiss.swig_ptr(self._bitmap))

    def _rows(self, slots: npt.NDArray[np.int64]) -> Vectors:
        """The stored rows of ``slots`` as float32."""
        if len(slots) == 0:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        rows: Vectors = self._store.reconstruct_batch(np.asarray(slots, dtype=np.int64))
        return rows

    def _codes(self) -> npt.NDArray[np.uint8]:
        """A copy of every slot's stored bytes (fp16 rows), slot order."""
        codes: npt.NDArray[np.uint8] = faiss.vector_to_array(self._store.codes)
        return codes.reshape(self._size, self._store.code_size)

    def _graph_locked(self, q: Vectors, limit: int) -> list[tuple[str, float]]:
        assert self._graph is not None
        fetch = max(limit, self.rescore_candidates)
        graph_params = faiss.SearchParametersHNSW()
        graph_params.efSearch = max(self.ef_search, fetch)
        if self.tombstones:
            graph_params.sel = self._selector()
        # the graph proposes `fetch` slots, re-scored on the fp16 store inside faiss
        params = faiss.IndexRefineSearchParameters(
            k_factor=(fetch + 0.5) / limit, base_index_params=graph_params
        )
        refine = faiss.IndexRefine(self._graph, self._store)
        with omp_threads(1):
            scores, labels = refine.search(q[None, :], limit, params=params)
        found = [
            (int(slot), float(score))
            for slot, score in zip(labels[0].tolist(), scores[0].tolist(), strict=True)
            if slot >= 0 and self._alive[slot]  # defensive: the selector excludes the dead
        ]
        if not found:
            return self._exact_locked(q, limit)
        return [(self._slot_ids[slot], score) for slot, score in found]

    # -- internals ------------------------------------------------------------------------

    def _reserve(self, needed: int) -> None:
        """Room for ``needed`` slots in the liveness mask (grown by doubling)."""
        capacity = self._alive.shape[0]
        if needed <= capacity:
            return
        alive = np.zeros(max(needed, 2 * capacity, _MIN_CAPACITY), dtype=bool)
        alive[: self._size] = self._alive[: self._size]
        self._alive = alive

    def _after_change(self) -> None:
        self._bitmap = None
        self._centroid = None
        if self._size and self.tombstones > TOMBSTONE_REBUILD_FRACTION * self._size:
            self._compact()

    def _compact(self) -> None:
        """Drop dead slots, renumber the live ones in order, and drop the graph."""
        keep = np.flatnonzero(self._alive[: self._size])
        codes = self._codes()[keep]
        self._slot_ids = [self._slot_ids[s] for s in keep.tolist()]
        self._slot_of = {doc_id: slot for slot, doc_id in enumerate(self._slot_ids)}
        self._store = _new_store(self.dimensions)
        if len(keep):
            self._store.add_sa_codes(np.ascontiguousarray(codes))
        self._alive = np.zeros(0, dtype=bool)
        self._size = 0
        self._reserve(len(keep))
        self._alive[: len(keep)] = True
        self._size = len(keep)
        self._graph = None

    def _build_locked(self) -> None:
        if self.tombstones:
            self._compact()
        if self._size == 0:  # nothing to train the quantizer on; built on a later search
            self._graph = None
            return
        graph = faiss.IndexHNSWSQ(
            self.dimensions, faiss.ScalarQuantizer.QT_8bit, self.m, faiss.METRIC_INNER_PRODUCT
        )
        graph.hnsw.efConstruction = self.ef_construction
        graph.hnsw.efSearch = self.ef_search
        data = self._rows(np.arange(self._size))
        graph.train(data)
        graph.add(data)
        self._graph = graph


def _new_store(dimensions: int) -> Any:
    """An empty half-precision row store (inner product)."""
    return faiss.IndexScalarQuantizer(
        dimensions, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
    )
