"""Lifecycle benchmark: cold index, warm start from a snapshot, refresh of 50 changed documents.

    .venv/bin/python bench/lifecycle.py [--work DIR] [--cold-provider onnx|synthetic]
                                        [--skip-100k] [--reuse]

Documents are spider2-snow tables (``shared/datasets/spider2-snow/catalog.jsonl``), repeated
with a suffix until there are enough: real names, descriptions and columns (about 5.7 KB of
JSON each, heavier than most schema documents).

* cold 10K: the real all-MiniLM-L6-v2 model (``--cold-provider synthetic`` for a quick run);
* warm 10K: from the generation the cold run saved; counts embedding calls and ANN builds;
* refresh: 50 documents changed, the real model embeds them;
* warm 100K: document vectors are **synthetic** (deterministic random unit vectors, 384
  dimensions) so the snapshot can be made without hours of embedding; everything else
  (documents, keyword index, HNSW graph, files, verification) is real. The 100K generation is
  kept in ``--work`` and reused by later runs.

Warm start is timed to "serving" (``init()`` returned: generation verified, indexes loaded)
and to "caught up" (the live catalog diffed against the snapshot: every live document hashed).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemaseek.documents import Document
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.counting import CountingProvider
from schemaseek.engine import SourceEngine
from schemaseek.signals.vector import VectorIndex
from schemaseek.snapshots.local import LocalDirStore
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.sources.catalog import load_catalog

CATALOG = Path(__file__).resolve().parents[1].parent / "shared/datasets/spider2-snow/catalog.jsonl"
QUERIES = ["customer orders by region", "royalty payments", "weather observations", "patents"]


class SyntheticProvider:
    """Deterministic random unit vectors from a hash of the text (no model)."""

    provider_name = "synthetic"

    def __init__(self, dimensions: int = 384) -> None:
        self._dimensions = dimensions

    @property
    def model_id(self) -> str:
        return f"synthetic-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        out = np.empty((len(texts), self._dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[row] = np.random.default_rng(seed).standard_normal(self._dimensions)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector


def documents(count: int, catalog: Path) -> list[Document]:
    base = [d for s in load_catalog(catalog) for d in s.documents]
    out: list[Document] = []
    round_ = 0
    while len(out) < count:
        for doc in base[: count - len(out)]:
            out.append(dataclasses.replace(doc, id=f"{doc.id}#{round_}", source="bench"))
        round_ += 1
    return out


def source(docs: list[Document]) -> SourceSchema:
    return SourceSchema("bench", "sql", docs, [], stable_hash([d.content_hash() for d in docs]))


class TimedProvider(CountingProvider):
    """Counts calls and the seconds spent in ``embed``."""

    def __init__(self, provider: Any) -> None:
        super().__init__(provider)
        self.embed_s = 0.0

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        started = time.perf_counter()
        try:
            return super().embed(texts, progress)
        finally:
            self.embed_s += time.perf_counter() - started


class BuildCounter:
    """Counts HNSW graph builds (a warm start must make none)."""

    def __init__(self) -> None:
        self.builds = 0
        self._original = VectorIndex._build_locked

    def __enter__(self) -> BuildCounter:
        counter = self

        def counted(index: VectorIndex) -> None:
            counter.builds += 1
            counter._original(index)

        VectorIndex._build_locked = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        VectorIndex._build_locked = self._original  # type: ignore[method-assign]


def engine(root: Path, schema: SourceSchema, provider: Any) -> SourceEngine:
    return SourceEngine(
        "bench", lambda: schema, provider=provider, snapshots=SnapshotManager(LocalDirStore(root))
    )


def warm(root: Path, schema: SourceSchema, inner: Any) -> tuple[dict[str, Any], SourceEngine]:
    counting = TimedProvider(inner)
    with BuildCounter() as builds:
        started = time.perf_counter()
        eng = engine(root, schema, counting)
        future = eng.init()
        serving = time.perf_counter() - started
        generation = eng.generation
        parts = eng.index._require()
        graph = parts.vector is not None and parts.vector.graph_built
        future.result()
        caught_up = time.perf_counter() - started
        first_query = time.perf_counter()
        eng.search(QUERIES[0], limit=10)
        first_query_ms = (time.perf_counter() - first_query) * 1000
    return {
        "documents": len(schema.documents),
        "serving_s": round(serving, 3),
        "caught_up_s": round(caught_up, 3),
        "first_search_ms": round(first_query_ms, 1),
        "embedding_calls": counting.embed_calls,
        "ann_graph_loaded": graph,
        "ann_builds": builds.builds,
        "generation": generation,
        "snapshot_mb": round(
            sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 1e6, 1
        ),
    }, eng


def newest_matching(manager: SnapshotManager, schema: SourceSchema) -> bool:
    """Make a saved generation of exactly ``schema`` the newest (an earlier run's refresh
    may have saved a changed one since); False when there is none."""
    saved = [g for g in manager.generations("bench") if manager.is_valid(g)]
    matching = [g for g in saved if g.manifest and g.manifest.schema_hash == schema.schema_hash]
    if matching and saved[0] is not matching[0]:
        manager.rollback("bench", matching[0].generation)
    return bool(matching)


def refresh_50(eng: SourceEngine, docs: list[Document]) -> dict[str, Any]:
    """Change 50 documents, refresh; split the time into embedding and the rest."""
    step = len(docs) // 50
    changed = [
        dataclasses.replace(d, description=f"{d.description} revised {i}") if i % step == 0 else d
        for i, d in enumerate(docs)
    ]
    eng._fetch = lambda: source(changed)
    timed = eng.provider  # (the bench's engines run without circuit breakers)
    before = timed.embed_s if isinstance(timed, TimedProvider) else 0.0
    report = eng.refresh().result()
    embed_s = (timed.embed_s if isinstance(timed, TimedProvider) else 0.0) - before
    return {
        "embedded": report.embedded,
        "serving_s": round(report.took_s, 3),
        "embedding_s": round(embed_s, 3),
        "engine_s": round(report.took_s - embed_s, 3),
        "save_s": round(report.extra.get("save_s", 0.0), 3),
        "error": report.error,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"loadavg": os.getloadavg(), "cpus": os.cpu_count()}
    work = Path(args.work)
    docs = documents(10_000, args.catalog)
    schema = source(docs)
    if args.cold_provider == "onnx":
        from schemaseek.embedding.onnx import OnnxEmbeddingProvider

        cold_provider: Any = OnnxEmbeddingProvider()
    else:
        cold_provider = SyntheticProvider()
    root = work / f"10k-{args.cold_provider}"
    existing = SnapshotManager(LocalDirStore(root))
    if args.reuse and newest_matching(existing, schema):
        results["cold_10k"] = "skipped (--reuse: the saved generation is used)"
    else:
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        cold = engine(root, schema, CountingProvider(cold_provider))
        report = cold.init(wait=True).result()
        results["cold_10k"] = {
            "provider": args.cold_provider,
            "documents": report.documents,
            "embedded": report.embedded,
            "ready_s": round(report.took_s, 2),
            "save_s": round(report.extra.get("save_s", 0.0), 2),
            "total_s": round(time.perf_counter() - started, 2),
        }
        cold.destroy()
    print(json.dumps({"cold_10k": results["cold_10k"]}), file=sys.stderr)

    results["warm_10k"], eng = warm(root, schema, cold_provider)
    print(json.dumps({"warm_10k": results["warm_10k"]}), file=sys.stderr)

    results["refresh_50"] = refresh_50(eng, docs)
    eng.destroy()
    print(json.dumps({"refresh_50": results["refresh_50"]}), file=sys.stderr)

    if not args.skip_100k:
        big = source(documents(100_000, args.catalog))
        big_root = work / "100k-synthetic"
        manager = SnapshotManager(LocalDirStore(big_root))
        if not newest_matching(manager, big):
            started = time.perf_counter()
            maker = engine(big_root, big, SyntheticProvider())
            made = maker.init(wait=True).result()
            maker.destroy()
            results["build_100k_synthetic_s"] = round(time.perf_counter() - started, 1)
            results["build_100k_save_s"] = round(made.extra.get("save_s", 0.0), 1)
        results["warm_100k"], eng = warm(big_root, big, SyntheticProvider())
        results["warm_100k"]["vectors"] = "synthetic"
        results["refresh_50_at_100k_synthetic"] = refresh_50(eng, big.documents)
        eng.destroy()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "schemaseek-bench"))
    parser.add_argument("--catalog", type=Path, default=CATALOG)
    parser.add_argument("--cold-provider", choices=["onnx", "synthetic"], default="onnx")
    parser.add_argument("--skip-100k", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="keep a saved 10K generation")
    args = parser.parse_args()
    results = run(args)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
