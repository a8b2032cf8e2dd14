"""Where an exact scan stops being cheaper than the HNSW graph: CPU per vector search (top 40,
one thread) of :class:`~schemaseek.signals.vector.VectorIndex` at several sizes, once forced
exact and once forced through the graph (400 re-scored candidates), interleaved, with the
graph's recall@10 against the exact answer. Vectors: clustered synthetic unit vectors (384
dimensions, 256 centres, as ``bench/search_latency.py`` uses at 100K); queries: other points
drawn the same way.

    .venv/bin/python bench/vector_crossover.py --sizes 10000 20000 40000 80000
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import faiss
import numpy as np

from schemaseek.signals.vector import VectorIndex

DIMENSIONS = 384


def clustered(n: int, rng: np.random.Generator, centres: np.ndarray) -> np.ndarray:
    rows = centres[rng.integers(0, len(centres), n)]
    rows = rows + 0.35 * rng.standard_normal((n, DIMENSIONS)).astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def cpu_ms(index: VectorIndex, queries: np.ndarray) -> tuple[float, list[list[str]]]:
    samples, answers = [], []
    for q in queries:
        started = time.thread_time()
        answers.append([i for i, _ in index.search(q, 40)])
        samples.append((time.thread_time() - started) * 1000)
    return statistics.median(samples), answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000, 40_000, 80_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    faiss.omp_set_num_threads(1)
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((256, DIMENSIONS)).astype(np.float32)
    print(f"load average {os.getloadavg()}")
    print("| vectors | exact CPU ms p50 | HNSW + re-score CPU ms p50 | HNSW recall@10 |")
    print("|---|---|---|---|")
    for size in args.sizes:
        vectors = clustered(size, rng, centres)
        queries = clustered(args.queries, rng, centres)
        ids = [f"d{i}" for i in range(size)]
        exact = VectorIndex(DIMENSIONS, exact_threshold=size + 1)
        graph = VectorIndex(DIMENSIONS, exact_threshold=0)
        for index in (exact, graph):
            index.add(ids, vectors)
        graph.build()
        exact_ms: list[float] = []
        graph_ms: list[float] = []
        for _ in range(args.rounds):
            ms, truth = cpu_ms(exact, queries)
            exact_ms.append(ms)
            ms, found = cpu_ms(graph, queries)
            graph_ms.append(ms)
        recall = statistics.mean(
            len(set(t[:10]) & set(f[:10])) / 10 for t, f in zip(truth, found, strict=True)
        )
        print(
            f"| {size:,} | {statistics.median(exact_ms):.3f} | "
            f"{statistics.median(graph_ms):.3f} | {recall:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
