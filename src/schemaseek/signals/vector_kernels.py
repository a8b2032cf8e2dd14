"""The faiss handle and the one-thread numeric kernels of the vector signal.

The exact scan uses faiss's single-threaded SIMD kernel (``fvec_inner_products_ny``) rather
than ``numpy.matmul``, whose OpenBLAS pool multithreads a 10K × 384 product and stalls when
another process holds a core; graph searches run inside :func:`omp_threads` ``(1)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import faiss as _faiss_module
import numpy as np
import numpy.typing as npt

from schemaseek.errors import EmbeddingError

__all__ = [
    "Vectors",
    "checked_query",
    "checked_rows",
    "faiss",
    "inner_products",
    "normalise",
    "omp_threads",
]

# The stubs bundled with faiss-cpu 1.15 are partial and disagree with its SWIG API
# (no SearchParametersHNSW, an int quantizer type rejected), so faiss is used untyped.
faiss: Any = _faiss_module
Vectors = npt.NDArray[np.float32]


@contextmanager
def omp_threads(count: int) -> Iterator[None]:
    """Run the block with this thread's OpenMP team size set to ``count``."""
    previous = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(count)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(previous)


def inner_products(matrix: Vectors, query: Vectors) -> Vectors:
    """``matrix @ query`` on one thread (faiss SIMD kernel). The kernel reads raw memory, so
    strided views are copied first (``swig_ptr`` rejects non-contiguous arrays)."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    query = np.ascontiguousarray(query, dtype=np.float32)
    out = np.empty(matrix.shape[0], dtype=np.float32)
    if matrix.shape[0]:
        faiss.fvec_inner_products_ny(
            faiss.swig_ptr(out),
            faiss.swig_ptr(query),
            faiss.swig_ptr(matrix),
            matrix.shape[1],
            matrix.shape[0],
        )
    return out


def nearest_rows(
    queries: Vectors, matrix: Vectors, count: int
) -> tuple[Vectors, npt.NDArray[np.int64]]:
    """The ``count`` rows of ``matrix`` with the highest inner product to each query, exact
    (faiss's exhaustive kernel on one thread): (scores, row numbers), one line per query,
    best first; row -1 where ``matrix`` has fewer rows."""
    with omp_threads(1):
        scores, rows = faiss.knn(
            np.ascontiguousarray(queries, dtype=np.float32),
            np.ascontiguousarray(matrix, dtype=np.float32),
            count,
            metric=faiss.METRIC_INNER_PRODUCT,
        )
    return scores, rows


def normalise(rows: Vectors) -> Vectors:
    """``rows`` scaled to unit length (all-zero rows stay zero), C-contiguous float32."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    np.maximum(norms, np.float32(1e-12), out=norms)
    return np.ascontiguousarray(rows / norms, dtype=np.float32)


def checked_rows(vectors: npt.ArrayLike, count: int, dimensions: int) -> Vectors:
    """``count`` rows of ``dimensions`` finite floats, unit-normalised; else EmbeddingError."""
    rows = np.asarray(vectors, dtype=np.float32)
    if rows.ndim != 2 or rows.shape != (count, dimensions):
        raise EmbeddingError(
            f"expected vectors of shape ({count}, {dimensions}) for {count} "
            f"ids, got shape {rows.shape}"
        )
    if not np.isfinite(rows).all():
        raise EmbeddingError("vectors contain NaN or infinite values")
    return normalise(rows)


def checked_query(query: npt.ArrayLike, dimensions: int) -> Vectors:
    """One query vector of ``dimensions`` finite floats, unit-normalised (a ``(1, d)`` row
    is accepted); else EmbeddingError."""
    q = np.asarray(query, dtype=np.float32)
    if q.ndim == 2 and q.shape[0] == 1:
        q = q[0]
    if q.shape != (dimensions,):
        raise EmbeddingError(f"expected a query vector of shape ({dimensions},), got {q.shape}")
    if not np.isfinite(q).all():
        raise EmbeddingError("query vector contains NaN or infinite values")
    normalised: Vectors = normalise(q[None, :])[0]
    return normalised
