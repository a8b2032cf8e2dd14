"""Quick quality experiments on the SQL datasets: one line of metrics per settings variant.

Document and question vectors come from the on-disk embedding cache (the first run embeds
them), so a variant over BIRD-dev or Spider-dev takes seconds. Used to pick global parameters
on BIRD-dev and Spider-dev only (never on Spider 2.0). Example::

    .venv/bin/python bench/tune.py bird-dev spider1-dev --scope pooled \\
        --variant base --variant 'rrf_k=40' --variant 'weights.proximity=0.5'
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schemaseek.config import SearchSettings, default_cache_dir
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.factory import provider_from_settings
from schemaseek.evaluation.datasets import load_sql_questions, resolve_dataset, sample
from schemaseek.evaluation.runner import evaluate
from schemaseek.sources.catalog import load_catalog

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
SHOWN = ("recall@5", "recall@10", "recall@20", "all_gold@10", "mrr", "ndcg@10")


def settings_provider() -> DiskCachedProvider:
    """The embedding model the settings name (``SCHEMASEEK_ONNX_MODEL=<dir>``: the
    model-directory option), through the on-disk vector cache."""
    return DiskCachedProvider(
        provider_from_settings(SearchSettings()), default_cache_dir() / "embeddings"
    )


class PrecomputedQueries:
    """Documents through the disk cache; questions embedded once, in one batch, and cached."""

    def __init__(self, disk: DiskCachedProvider, questions: Sequence[str]) -> None:
        self.disk = disk
        vectors = disk.embed(list(questions))
        self.queries = dict(zip(questions, vectors, strict=True))

    @property
    def provider(self) -> DiskCachedProvider:
        """The wrapped chain, so the reranker reads the token vectors of the model the index
        uses (a fused provider's own choice), not a fresh packaged model's."""
        return self.disk

    @property
    def model_id(self) -> str:
        return self.disk.model_id

    @property
    def dimensions(self) -> int:
        return self.disk.dimensions

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        return self.disk.embed(texts, progress)

    def embed_query(self, text: str) -> Vectors:
        found = self.queries.get(text)
        return found if found is not None else self.disk.embed_query(text)


def parse_variant(text: str) -> dict[str, Any]:
    update: dict[str, Any] = {}
    if text == "base":
        return update
    for item in text.split(","):
        key, value = item.split("=", 1)
        parsed = json.loads(value) if value[:1] in "0123456789-[{tf" else value
        if "." in key:
            group, name = key.split(".", 1)
            update.setdefault(group, {})[name] = parsed
        else:
            update[key] = parsed
    return update


def settings_variant(variant: str) -> SearchSettings:
    """The default settings changed by a variant string (``key=value,group.key=value``)."""
    base = SearchSettings().model_dump()
    for key, value in parse_variant(variant).items():
        base[key] = {**base[key], **value} if isinstance(value, dict) else value
    return SearchSettings(**base)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--scope", action="append", default=None)
    parser.add_argument("--variant", action="append", default=None)
    parser.add_argument("--limit-queries", type=int, default=None)
    args = parser.parse_args()
    scopes = args.scope or ["per-source", "pooled"]
    disk = settings_provider()
    for name in args.datasets:
        files = resolve_dataset(DATASETS / name)
        sources = load_catalog(files.catalog)
        questions = sample(load_sql_questions(files.queries), args.limit_queries)
        provider = PrecomputedQueries(disk, [q.question for q in questions])
        for variant in args.variant or ["base"]:
            settings = settings_variant(variant)
            for scope in scopes:
                result = evaluate(
                    sources, questions, dataset=name, scope=scope, settings=settings,
                    provider=provider,
                )  # fmt: skip
                mode = result.modes["hybrid"]
                cells = " ".join(f"{mode.metrics[m]:.4f}" for m in SHOWN)
                print(
                    f"{name:12} {scope:10} {variant:40} {cells}  p50 {mode.latency_p50_ms:.1f}ms",
                    flush=True,
                )


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
