"""Search latency and index cost at 1K, 10K and 100K schema-like documents.

For each size: p50/p95 of keyword, vector and hybrid search (query embedding cached and
uncached), index build time, and resident memory per document.

Documents are synthetic but schema-shaped (table/field names built from a business
vocabulary, descriptions, 5–30 members). At 1K and 10K they are embedded with the real model
(all-MiniLM-L6-v2 int8, cached under .cache/bench/); at 100K, embedding would take ~10 minutes
on 2 cores, so document vectors are synthetic clustered unit vectors (HNSW cost depends on the
vector distribution, not on where vectors came from) while query vectors still come from the
real model. Usage::

    .venv/bin/python bench/search_latency.py [--sizes 1000 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.base import SourceSchema

WORDS = [
    "account",
    "order",
    "invoice",
    "payment",
    "royalty",
    "contract",
    "artist",
    "label",
    "release",
    "product",
    "track",
    "delivery",
    "partner",
    "territory",
    "currency",
    "rate",
    "statement",
    "line",
    "customer",
    "shipment",
    "warehouse",
    "inventory",
    "supplier",
    "employee",
    "department",
    "region",
    "campaign",
    "session",
    "event",
    "click",
    "subscription",
    "plan",
    "price",
    "discount",
    "tax",
    "refund",
    "ledger",
    "balance",
    "transfer",
    "audit",
    "user",
    "role",
    "permission",
    "document",
    "version",
    "status",
    "type",
    "category",
    "tag",
    "review",
    "rating",
    "comment",
    "store",
    "channel",
    "market",
    "forecast",
    "budget",
    "cost",
    "revenue",
    "margin",
    "quota",
    "target",
    "metric",
    "report",
    "dashboard",
]
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "bench"


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def synthetic_documents(n: int, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        name_words = rng.sample(WORDS, rng.randint(2, 3))
        name = "_".join(name_words) + f"_{i}"
        description = " ".join(rng.choices(WORDS, k=rng.randint(8, 15)))
        members = tuple(
            f"{'_'.join(rng.sample(WORDS, 2))} {rng.choice(['INT', 'TEXT', 'DATE', 'NUMBER'])}"
            for _ in range(rng.randint(5, 30))
        )
        docs.append(
            Document(
                f"DB.S{i % 50}.{name.upper()}",
                DocKind.SQL_TABLE,
                "bench",
                name,
                description,
                members,
            )
        )
    return docs


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(2, 6))) for _ in range(n)]


# words no synthetic name holds: questions holding them run the name bridge (its word vectors
# come from the model, then from its cache)
OTHER_WORDS = [
    "clients",
    "staff",
    "earnings",
    "vendors",
    "purchases",
    "salary",
    "branch",
    "promotion",
    "feedback",
    "sellers",
    "stock",
    "expense",
    "profit",
    "outlet",
]


def reworded_queries(n: int, seed: int = 13) -> list[str]:
    """Questions of ``queries``' shape with one or two words no name holds."""
    rng = random.Random(seed)
    out = []
    for q in queries(n, seed):
        words = q.split()
        for _ in range(rng.randint(1, 2)):
            words[rng.randrange(len(words))] = rng.choice(OTHER_WORDS)
        out.append(" ".join(words))
    return out


def bridge_rows(
    size: int, docs: list[Document], provider: PrecomputedProvider, n: int
) -> list[str]:
    """Hybrid, cached query and word vectors, on questions with words no name holds: the
    default (name bridge on) against ``weights.bridge = 0``, interleaved question by question."""
    on = SchemaIndex([SourceSchema("bench", "sql", docs, [], "")], provider=provider)
    off = SchemaIndex(
        [SourceSchema("bench", "sql", docs, [], "")],
        provider=provider,
        settings=SearchSettings(weights={"bridge": 0.0}),
    )
    on.build()
    off.build()
    vocabulary = on.stored_vocabulary()
    qs = reworded_queries(n)
    for q in qs:  # warm the query and word caches
        on.search(q)
        off.search(q)
    walls: dict[str, list[float]] = {"bridge on": [], "bridge off": []}
    cpus: dict[str, list[float]] = {"bridge on": [], "bridge off": []}
    for q in qs:
        for label, index in (("bridge on", on), ("bridge off", off)):
            t0, c0 = time.perf_counter(), time.thread_time()
            index.search(q)
            cpus[label].append((time.thread_time() - c0) * 1000)
            walls[label].append((time.perf_counter() - t0) * 1000)
    words = len(vocabulary.words) if vocabulary else 0
    rows = []
    for label in walls:
        p50, p95 = percentiles(walls[label])
        cpu = statistics.median(cpus[label])
        rows.append(
            f"| {size:,} | real | hybrid, reworded ({label}, {words} name words) | cached | "
            f"{p50:.2f} | {p95:.2f} | {cpu:.2f} |"
        )
    return rows


def adapter_rows(
    size: int, docs: list[Document], vectors: dict[str, np.ndarray], model: OnnxEmbeddingProvider,
    n: int,
) -> list[str]:  # fmt: skip
    """Hybrid, cached query vectors: the question adapter on (the default) against off, on the
    same documents as GraphQL types (one search, mapped vector) and half GraphQL, half SQL in
    two sources (two vector searches, merged), interleaved question by question."""
    as_types = [dataclasses.replace(d, kind=DocKind.GRAPHQL_TYPE) for d in docs]
    reused = {
        t.embedding_text(): vectors[d.embedding_text()] for t, d in zip(as_types, docs, strict=True)
    }
    provider = PrecomputedProvider({**vectors, **reused}, model)
    half = size // 2
    layouts = {
        "GraphQL": [SourceSchema("bench", "graphql", as_types, [], "")],
        "GraphQL + SQL": [
            SourceSchema("api", "graphql", as_types[:half], [], ""),
            SourceSchema("db", "sql", docs[half:], [], ""),
        ],
    }
    rows = []
    qs = queries(n)
    for layout, sources in layouts.items():
        indexes = {
            f"adapter {label}": SchemaIndex(
                sources, provider=provider, settings=SearchSettings(query_adapter=setting)
            )
            for label, setting in (("on", "auto"), ("off", "none"))
        }
        for index in indexes.values():
            index.build()
            for q in qs:  # warm the query cache
                index.search(q)
        walls: dict[str, list[float]] = {label: [] for label in indexes}
        cpus: dict[str, list[float]] = {label: [] for label in indexes}
        for q in qs:
            for label, index in indexes.items():
                t0, c0 = time.perf_counter(), time.thread_time()
                index.search(q)
                cpus[label].append((time.thread_time() - c0) * 1000)
                walls[label].append((time.perf_counter() - t0) * 1000)
        for label in indexes:
            p50, p95 = percentiles(walls[label])
            rows.append(
                f"| {size:,} | real | hybrid, {layout} ({label}) | cached | "
                f"{p50:.2f} | {p95:.2f} | {statistics.median(cpus[label]):.2f} |"
            )
    return rows


class PrecomputedProvider:
    """Document vectors from a table (real-cached or synthetic); queries from the real model."""

    def __init__(self, vectors: dict[str, np.ndarray], model: OnnxEmbeddingProvider) -> None:
        self.vectors = vectors
        self.model = model

    @property
    def model_id(self) -> str:
        return self.model.model_id

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        if any(t not in self.vectors for t in texts):  # the name bridge's words
            return self.model.embed(texts, progress)
        out = np.stack([self.vectors[t] for t in texts]).astype(np.float32)
        if progress:
            progress(len(texts))
        return out

    def embed_query(self, text: str) -> Vectors:
        return self.model.embed_query(text)


def document_vectors(
    docs: list[Document], model: OnnxEmbeddingProvider, real: bool
) -> dict[str, np.ndarray]:
    texts = [d.embedding_text() for d in docs]
    if real:
        key = hashlib.sha256(("\n".join(texts) + model.model_id).encode()).hexdigest()[:16]
        path = CACHE / f"docs-{len(docs)}-{key}.npy"
        if path.exists():
            matrix = np.load(path)
        else:
            matrix = model.embed(texts)
            CACHE.mkdir(parents=True, exist_ok=True)
            np.save(path, matrix)
    else:
        rng = np.random.default_rng(3)
        centers = rng.standard_normal((256, model.dimensions)).astype(np.float32)
        assign = rng.integers(0, 256, len(texts))
        matrix = centers[assign] + 0.35 * rng.standard_normal(
            (len(texts), model.dimensions)
        ).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return dict(zip(texts, matrix, strict=True))


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def timed(fn: Callable[[str], object], items: list[str]) -> tuple[float, float, float]:
    """Wall p50 and p95 and CPU p50 (``time.thread_time``: search runs on the calling
    thread, so load on the machine moves wall time, not CPU time), in ms."""
    samples, cpu = [], []
    for item in items:
        t0, c0 = time.perf_counter(), time.thread_time()
        fn(item)
        cpu.append((time.thread_time() - c0) * 1000)
        samples.append((time.perf_counter() - t0) * 1000)
    p50, p95 = percentiles(samples)
    return p50, p95, statistics.median(cpu)


def run(size: int, n_queries: int, model: OnnxEmbeddingProvider) -> list[str]:
    docs = synthetic_documents(size)
    real = size <= 10_000
    vectors = document_vectors(docs, model, real)
    provider = PrecomputedProvider(vectors, model)
    before = rss_bytes()
    t0 = time.perf_counter()
    index = SchemaIndex([SourceSchema("bench", "sql", docs, [], "")], provider=provider)
    index.build()
    qs = queries(n_queries)
    index.search(qs[0])  # first search builds HNSW lazily above the exact threshold
    build_s = time.perf_counter() - t0
    per_doc = (rss_bytes() - before) / size

    rows = []
    label = "real" if real else "synthetic"
    for mode in ("keyword", "vector", "hybrid"):
        for q in qs:  # warm the query cache
            index.search(q, mode=mode)  # type: ignore[arg-type]
        p50, p95, cpu = timed(lambda q, m=mode: index.search(q, mode=m), qs)  # type: ignore[misc]
        rows.append(f"| {size:,} | {label} | {mode} | cached | {p50:.2f} | {p95:.2f} | {cpu:.2f} |")
        if mode != "keyword":
            # questions never asked before in any mode, so the query embedding really runs
            fresh = [f"{q} {mode} {i}" for i, q in enumerate(queries(n_queries // 2, seed=size))]
            p50, p95, cpu = timed(lambda q, m=mode: index.search(q, mode=m), fresh)  # type: ignore[misc]
            rows.append(
                f"| {size:,} | {label} | {mode} | uncached | {p50:.2f} | {p95:.2f} | {cpu:.2f} |"
            )
    if real:
        rows.extend(bridge_rows(size, docs, provider, n_queries))
        rows.extend(adapter_rows(size, docs, vectors, model, n_queries))
    rows.append(
        f"| {size:,} | {label} | build | — | {build_s:.1f} s total | "
        f"{per_doc / 1024:.1f} KiB/doc RSS | — |"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    model = OnnxEmbeddingProvider()
    model.embed_query("warm up")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}"
    )
    print(
        f"load average {os.getloadavg()}; CPU ratio to the libraries' floor: bench/search_floor.py"
    )
    print("| docs | doc vectors | mode | query vector | p50 ms | p95 ms | CPU p50 ms |")
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes:
        for row in run(size, args.queries, model):
            print(row, flush=True)


if __name__ == "__main__":
    main()
