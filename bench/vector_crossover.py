"""Where exact vector search stops being cheaper than HNSW, and what HNSW settings buy.

For each size, on clustered unit vectors (384-d, 256 clusters, as bench/search_latency.py
makes for 100K), the CPU time per search (``time.thread_time``, one thread) of:

* the exact scan of :class:`~schemaseek.signals.vector.VectorIndex` (float32, faiss's
  single-threaded inner-product kernel), and
* its HNSW-SQ8 graph with N candidates re-scored exactly, for several N,

and each HNSW variant's recall@10 against the exact answer. Queries are noisy copies of held-out
vectors of the same distribution. Systems are interleaved per query (exact, then each HNSW
variant) so machine load hits them alike; the load average is printed with the results.

    .venv/bin/python bench/vector_crossover.py --sizes 10000 20000 50000 100000

``--real`` uses real vectors instead: the documents of our eight labelled GraphQL schemas
(bench/questions; vectors from the on-disk embedding cache), questions from those sets as
queries, sizes up to the ~60K documents they hold. Questions sit far from documents, which is
what makes graph search need re-scored candidates.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from schemaseek.signals.vector import VectorIndex

DIM = 384


def clustered(n: int, rng: np.random.Generator, centers: np.ndarray) -> np.ndarray:
    assign = rng.integers(0, len(centers), n)
    rows = centers[assign] + 0.35 * rng.standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def real_vectors(limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``limit`` real document vectors (eight GraphQL schemas, shuffled) and the vectors
    of every question of their labelled sets."""
    import json
    from pathlib import Path

    from schemaseek.config import default_cache_dir
    from schemaseek.embedding.disk_cache import DiskCachedProvider
    from schemaseek.embedding.onnx import OnnxEmbeddingProvider
    from schemaseek.sources.graphql import load_sdl

    root = Path(__file__).resolve().parents[1]
    shared = root.parent / "shared" / "datasets" / "graphql"
    disk = DiskCachedProvider(OnnxEmbeddingProvider(), default_cache_dir() / "embeddings")
    texts: list[str] = []
    questions: list[str] = []
    for name in ("gitlab", "saleor", "linear", "monday", "artsy", "hashnode", "buildkite",
                 "opencollective"):  # fmt: skip
        texts += [d.embedding_text() for d in load_sdl(shared / f"{name}.graphql").documents]
        lines = (root / "bench" / "questions" / f"{name}.jsonl").read_text().splitlines()
        questions += [json.loads(line)["question"] for line in lines if line.strip()]
    order = np.random.default_rng(1).permutation(len(texts))[:limit]
    docs = np.asarray(disk.embed([texts[i] for i in order]), dtype=np.float32)
    return docs, np.asarray(disk.embed(questions), dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000, 50_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--candidates", type=int, nargs="+", default=[100, 200, 400])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--real", action="store_true", help="real GraphQL document vectors")
    args = parser.parse_args()
    pool, asked = real_vectors(max(args.sizes)) if args.real else (None, None)
    rng = np.random.default_rng(5)
    centers = rng.standard_normal((256, DIM)).astype(np.float32)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print("| size | search | CPU p50 ms | CPU mean ms | recall@10 |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        if pool is not None and asked is not None:
            data, queries = pool[:size], asked[: args.queries]
        else:
            data, queries = clustered(size, rng, centers), clustered(args.queries, rng, centers)
        ids = [f"d{i}" for i in range(size)]
        exact = VectorIndex(DIM, exact_threshold=size + 1)
        exact.add(ids, data)
        graphs = {}
        for n in args.candidates:
            graph = VectorIndex(DIM, exact_threshold=0, rescore_candidates=n)
            graph.add(ids, data)
            graph.build()
            graphs[n] = graph
        cpu: dict[str, list[float]] = {"exact": [], **{f"hnsw {n}": [] for n in graphs}}
        recall: dict[int, list[float]] = {n: [] for n in graphs}
        for q in queries:
            started = time.thread_time()
            truth = exact.search(q, args.limit)
            cpu["exact"].append(time.thread_time() - started)
            top10 = {d for d, _ in truth[:10]}
            for n, graph in graphs.items():
                started = time.thread_time()
                found = graph.search(q, args.limit)
                cpu[f"hnsw {n}"].append(time.thread_time() - started)
                recall[n].append(len(top10 & {d for d, _ in found[:10]}) / 10)
        for name, samples in cpu.items():
            ms = np.array(samples) * 1000
            hit = "1.000" if name == "exact" else f"{np.mean(recall[int(name.split()[1])]):.3f}"
            print(f"| {size:,} | {name} | {np.median(ms):.3f} | {ms.mean():.3f} | {hit} |")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
