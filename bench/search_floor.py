"""Search-only CPU per query against the floor of the libraries underneath, and resident memory
per document, on one index of synthetic schema-shaped documents (``bench/search_latency.py``'s
generator; real-model document vectors up to 10K, cached under ``.cache/bench/``, synthetic
clustered unit vectors above, as there).

The floor is what the two retrieval libraries cost on the same data with nothing around them:
tantivy's top 40 for the question over one text field, and a faiss 8-bit flat inner-product
scan for the top 40. Each system answers every (cached) question once per round; rounds are
interleaved so that load on the machine falls on all of them alike. CPU is
``time.thread_time`` around each call (search runs on the calling thread); wall is
``perf_counter``. Memory: RSS after ``gc`` and ``malloc_trim`` before and after the build.

    .venv/bin/python -m bench.search_floor --size 10000 --queries 200 --rounds 3
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import faiss
import numpy as np
import tantivy
from bench.search_latency import (
    PrecomputedProvider,
    document_vectors,
    queries,
    rss_bytes,
    synthetic_documents,
)

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.base import SourceSchema

TOP = 40


def trimmed_rss() -> int:
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_bytes()


def tantivy_floor(texts: list[str]) -> Callable[[str], object]:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", stored=False)
    builder.add_integer_field("row", stored=True, fast=True)
    schema = builder.build()
    index = tantivy.Index(schema, path=tempfile.mkdtemp(prefix="floor-"))
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for row, text in enumerate(texts):
        writer.add_document(tantivy.Document(text=text, row=row))
    writer.commit()
    index.reload()
    searcher = index.searcher()

    def search(question: str) -> object:
        query = index.parse_query(question, ["text"])
        return searcher.search(query, TOP).hits

    return search


def faiss_floor(matrix: np.ndarray, model: OnnxEmbeddingProvider) -> Callable[[str], object]:
    index = faiss.IndexScalarQuantizer(
        matrix.shape[1], faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.train(matrix)
    index.add(matrix)
    cache: dict[str, np.ndarray] = {}

    def search(question: str) -> object:
        q = cache.get(question)
        if q is None:  # the question's vector, as schemaseek's query cache holds it
            q = cache[question] = np.asarray(model.embed_query(question), np.float32)[None, :]
        return index.search(q, TOP)

    return search


def measure(fn: Callable[[str], object], items: list[str]) -> tuple[list[float], list[float]]:
    cpu, wall = [], []
    for item in items:
        c0, w0 = time.thread_time(), time.perf_counter()
        fn(item)
        cpu.append((time.thread_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    faiss.omp_set_num_threads(1)
    model = OnnxEmbeddingProvider()
    docs = synthetic_documents(args.size)
    real = args.size <= 10_000  # as bench/search_latency.py: 100K real vectors take an hour
    vectors = document_vectors(docs, model, real=real)
    texts = [d.embedding_text() for d in docs]
    before = trimmed_rss()
    index = SchemaIndex(
        [SourceSchema("bench", "sql", docs, [], "")],
        provider=PrecomputedProvider(vectors, model),
    )
    index.build()
    qs = queries(args.queries)
    index.search(qs[0])
    per_doc = (trimmed_rss() - before) / args.size
    systems: dict[str, Callable[[str], object]] = {
        "schemaseek hybrid": lambda q: index.search(q),
        "schemaseek keyword": lambda q: index.search(q, mode="keyword"),
        "schemaseek vector": lambda q: index.search(q, mode="vector"),
        "floor: tantivy top-40": tantivy_floor(texts),
        "floor: faiss int8 flat top-40": faiss_floor(np.stack([vectors[t] for t in texts]), model),
    }
    for fn in systems.values():  # warm every query cache
        for q in qs:
            fn(q)
    cpu: dict[str, list[float]] = {name: [] for name in systems}
    wall: dict[str, list[float]] = {name: [] for name in systems}
    for _ in range(args.rounds):
        for name, fn in systems.items():
            c, w = measure(fn, qs)
            cpu[name] += c
            wall[name] += w
    floor = statistics.median(cpu["floor: tantivy top-40"]) + statistics.median(
        cpu["floor: faiss int8 flat top-40"]
    )
    print(
        f"{args.size:,} documents ({'real' if real else 'synthetic clustered'} vectors), "
        f"{args.queries} questions x {args.rounds} rounds; "
        f"load average {os.getloadavg()}; RSS {per_doc / 1024:.2f} KiB per document"
    )
    print("| system | CPU ms p50 | CPU ms p95 | wall ms p50 | × floor (CPU p50) |")
    print("|---|---|---|---|---|")
    for name in systems:
        c = sorted(cpu[name])
        p95 = c[round(0.95 * (len(c) - 1))]
        ratio = statistics.median(c) / floor
        print(
            f"| {name} | {statistics.median(c):.3f} | {p95:.3f} | "
            f"{statistics.median(wall[name]):.3f} | {ratio:.1f} |"
        )
    print(f"floor (tantivy + faiss, CPU p50): {floor:.3f} ms")


if __name__ == "__main__":
    main()
