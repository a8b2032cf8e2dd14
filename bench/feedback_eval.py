"""Does usage feedback improve ranking, honestly measured?

For a dataset (pooled scope), questions are split in two halves by a hash of their id. The
gold tables of half A are replayed as usage feedback (what a user went on to use); half B is
evaluated before and after. Half B's questions unlike every half-A question (best cosine below
the feedback threshold) are reported separately: feedback must leave them exactly as they
were. Example::

    .venv/bin/python bench/feedback_eval.py bird-dev spider1-dev
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from schemaseek.config import SearchSettings, default_cache_dir
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.evaluation.datasets import Question, load_sql_questions, resolve_dataset
from schemaseek.evaluation.metrics import aggregate
from schemaseek.index import SchemaIndex
from schemaseek.sources.catalog import load_catalog
from tune import DATASETS, PrecomputedQueries

SHOWN = ("recall@5", "recall@10", "all_gold@10", "hit@1", "mrr", "ndcg@10")


def half(question: Question) -> str:
    return "A" if hashlib.sha256(question.id.encode()).digest()[0] % 2 == 0 else "B"


def scores(index: SchemaIndex, questions: list[Question]) -> dict[str, float]:
    pairs = [(index.search(q.question, limit=20).ids(), q.gold) for q in questions]
    return aggregate(pairs).metrics


def main() -> None:
    model = OnnxEmbeddingProvider()
    disk = DiskCachedProvider(model, default_cache_dir() / "embeddings")
    settings = SearchSettings()
    for name in sys.argv[1:] or ["bird-dev"]:
        files = resolve_dataset(DATASETS / name)
        questions = load_sql_questions(files.queries)
        provider = PrecomputedQueries(disk, [q.question for q in questions])
        past = [q for q in questions if half(q) == "A"]
        new = [q for q in questions if half(q) == "B"]
        index = SchemaIndex(load_catalog(files.catalog), provider=provider, settings=settings)
        index.build()
        before = scores(index, new)
        for q in past:
            index.record_usage(list(q.gold), query=q.question)
        after = scores(index, new)
        past_vectors = np.stack([provider.embed_query(q.question) for q in past])
        unlike = [
            q for q in new
            if float(np.max(past_vectors @ provider.embed_query(q.question)))
            < settings.feedback_min_similarity
        ]  # fmt: skip
        fresh = SchemaIndex(load_catalog(files.catalog), provider=provider, settings=settings)
        fresh.build()
        unlike_before, unlike_after = scores(fresh, unlike), scores(index, unlike)
        print(
            f"\n{name} (pooled): {len(past)} questions replayed as feedback, "
            f"{len(new)} evaluated, {len(unlike)} of them unlike every past question"
        )
        print("| half B | " + " | ".join(SHOWN) + " |")
        print("|---|" + "---|" * len(SHOWN))
        for label, m in (
            ("without feedback", before),
            ("with feedback", after),
            ("unlike questions, without", unlike_before),
            ("unlike questions, with", unlike_after),
        ):
            print(f"| {label} | " + " | ".join(f"{m[k]:.3f}" for k in SHOWN) + " |")


if __name__ == "__main__":
    main()
