"""Sweep the late-interaction reranker's ``alpha`` and candidate count on a SQL dataset.

One index is built per run; every question is searched (hybrid, ``limit=20``, the full pipeline
including the stages after the rerank) once per (``alpha``, ``rerank_candidates``) pair, with a
reranker that computes MaxSim once per question and replays it with each pair's mixing.
``fused`` is the pipeline without reranking. Tune on BIRD-dev and Spider-dev only.

    .venv/bin/python bench/rerank_eval.py ../shared/datasets/bird-dev --scope pooled \
        --settings fusion=weighted_sum,weights.vector=2.0
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

from schemaseek.config import default_cache_dir
from schemaseek.documents import Document
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.evaluation import aggregate, load_sql_questions, resolve_dataset
from schemaseek.index import SchemaIndex
from schemaseek.rerankers import LateInteractionReranker, Ranked, reorder
from schemaseek.rerankers.late_interaction import mix_with_fused
from schemaseek.sources.catalog import load_catalog
from tune import settings_variant

ALPHAS = (0.3, 0.5, 0.7, 1.0)
HEADS = (3, 5, 10, 20)
METRICS = ("recall@5", "recall@10", "recall@20", "all_gold@10", "hit@1", "mrr", "ndcg@10")


class Replay:
    """MaxSim over the first ``max(heads)`` candidates, computed once per question, then
    mixed and ordered like :class:`LateInteractionReranker` with the current ``alpha``/``head``."""

    def __init__(self, late: LateInteractionReranker) -> None:
        self.late = late
        self.alpha = 1.0
        self.head = 0
        self._memo: tuple[str, tuple[str, ...], dict[str, float]] | None = None

    def rerank(
        self, query: str, candidates: Sequence[Document], fused: Sequence[float] | None = None
    ) -> Ranked:
        if self.head == 0:
            if fused is not None:
                return [(doc.id, float(s)) for doc, s in zip(candidates, fused, strict=True)]
            return [(doc.id, -float(i)) for i, doc in enumerate(candidates)]
        ids = tuple(doc.id for doc in candidates)
        if self._memo is None or self._memo[:2] != (query, ids):
            self._memo = (query, ids, dict(self.late.rerank(query, candidates)))
        scores = self._memo[2]
        head = candidates[: self.head]
        raw = np.asarray([scores[doc.id] for doc in head], dtype=np.float32)
        prior = None if fused is None else np.asarray(fused[: self.head], dtype=np.float32)
        return reorder(candidates, mix_with_fused(raw, self.alpha, prior).tolist())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset")
    parser.add_argument("--scope", choices=("per-source", "pooled"), default="pooled")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--alphas", type=float, nargs="+", default=ALPHAS)
    parser.add_argument("--heads", type=int, nargs="+", default=HEADS)
    parser.add_argument(
        "--settings", default="base", help="settings as in tune.py --variant (key=value,...)"
    )
    args = parser.parse_args()
    settings = settings_variant(args.settings).model_copy(
        update={"query_cache_size": 4, "reranker": "none"}
    )

    files = resolve_dataset(args.dataset)
    questions = [
        q for q in load_sql_questions(files.queries, "tables", args.limit_queries) if q.gold
    ]
    provider = OnnxEmbeddingProvider()
    late = LateInteractionReranker(provider, alpha=1.0, max_candidates=max(args.heads))
    replay = Replay(late)
    index = SchemaIndex(
        load_catalog(files.catalog),
        provider=DiskCachedProvider(provider, default_cache_dir() / "embeddings"),
        settings=settings,
        reranker=replay,
    )
    index.build()
    configs = [("fused", 1.0, 0)] + [
        (f"alpha={a} candidates={h}", a, h) for a in args.alphas for h in args.heads
    ]
    pairs: dict[str, list[tuple[list[str], tuple[str, ...]]]] = {name: [] for name, _, _ in configs}
    for question in questions:
        only = [question.source] if args.scope == "per-source" and question.source else []
        for name, alpha, head in configs:
            replay.alpha, replay.head = alpha, head
            response = index.search(question.question, limit=20, sources=only)
            pairs[name].append((response.ids(), question.gold))
    rows = {}
    for name, scored in pairs.items():
        metrics = aggregate(scored).metrics
        rows[name] = {key: round(metrics[key], 4) for key in METRICS}
    print(json.dumps({"dataset": files.name, "scope": args.scope, "queries": len(questions),
                      "settings": args.settings,
                      "cache": str(late.stats), "rows": rows}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
