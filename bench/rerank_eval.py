"""Sweep the late-interaction reranker's parameters on a SQL dataset, one index build per scope.

Each question is searched once (hybrid, ``limit=20``) with a recording reranker that keeps the
fused order and remembers the candidates the rerank stage saw. MaxSim is then computed once per
question, and every (``alpha``, ``rerank_candidates``) pair is scored offline with the same
mixing and ordering code the reranker uses. Use it on BIRD-dev and Spider-dev only (tuning).

    .venv/bin/python bench/rerank_eval.py ../shared/datasets/bird-dev --scope pooled
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

import numpy as np

from schemaseek.config import SearchSettings
from schemaseek.documents import Document
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.evaluation import aggregate, load_sql_questions, resolve_dataset
from schemaseek.index import SchemaIndex
from schemaseek.rerankers import LateInteractionReranker, reorder
from schemaseek.rerankers.late_interaction import mix_with_fused_order
from schemaseek.sources.catalog import load_catalog

ALPHAS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0)
HEADS = (5, 10, 20, 40)


class Recorder:
    """A reranker that keeps the fused order and records what it was given."""

    def __init__(self) -> None:
        self.candidates: list[Document] = []

    def rerank(self, query: str, candidates: Sequence[Document]) -> list[tuple[str, float]]:
        self.candidates = list(candidates)
        return [(doc.id, float(-i)) for i, doc in enumerate(candidates)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset")
    parser.add_argument("--scope", choices=("per-source", "pooled"), default="pooled")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--alphas", type=float, nargs="+", default=ALPHAS)
    parser.add_argument("--heads", type=int, nargs="+", default=HEADS)
    args = parser.parse_args()

    files = resolve_dataset(args.dataset)
    questions = [
        q for q in load_sql_questions(files.queries, "tables", args.limit_queries) if q.gold
    ]
    provider = OnnxEmbeddingProvider()
    recorder = Recorder()
    index = SchemaIndex(
        load_catalog(files.catalog),
        provider=DiskCachedProvider(provider, ".cache/embeddings"),
        settings=SearchSettings(query_cache_size=1),
        reranker=recorder,
    )
    index.build()
    late = LateInteractionReranker(provider, max_candidates=max(args.heads))
    runs: list[tuple[list[str], list[Document], np.ndarray, tuple[str, ...]]] = []
    spent: list[float] = []
    for question in questions:
        only = [question.source] if args.scope == "per-source" and question.source else []
        response = index.search(question.question, limit=20, sources=only)
        pinned = [h.id for h in response.hits if h.explanation.pinned]
        started = time.perf_counter()
        ranked = late.rerank(question.question, recorder.candidates)
        spent.append((time.perf_counter() - started) * 1000.0)
        by_id = dict(ranked)
        head = recorder.candidates[: max(args.heads)]
        scores = np.asarray([by_id[d.id] for d in head], dtype=np.float32)
        runs.append((pinned, recorder.candidates, scores, question.gold))

    rows = {}
    for key, alpha, heads in [("fused", 1.0, (0,))] + [
        (f"alpha={a} head={h}", a, (h,)) for a in args.alphas for h in args.heads
    ]:
        pairs = []
        for pinned, candidates, scores, gold in runs:
            head = min(heads[0], len(scores))
            mixed = mix_with_fused_order(scores[:head], alpha).tolist() if head else []
            ids = pinned + [d for d, _ in reorder(candidates, mixed)]
            pairs.append((ids[:20], gold))
        metrics = aggregate(pairs).metrics
        rows[key] = {k: round(metrics[k], 4) for k in ("recall@5", "recall@10", "mrr", "ndcg@10")}
    p50, p95 = np.percentile(np.asarray(spent), [50, 95])
    print(json.dumps({"dataset": files.name, "scope": args.scope, "queries": len(runs),
                      "rerank_ms": {"p50": round(float(p50), 2), "p95": round(float(p95), 2)},
                      "cache": str(late.stats), "rows": rows}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
