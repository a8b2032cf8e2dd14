"""Runs schema-search 3.1.0 for ``bench/baselines.py``, inside the interpreter that has it.

schema-search needs torch and sentence-transformers, so it lives in its own venv; this script
is started there by ``baselines.py`` in a scratch directory holding one SQLite file per
database. Job JSON on stdin: ``{"model", "modes", "groups": {key: [[schema, file], ...]},
"questions": [[key, question], ...]}``; rankings and latencies (ms) per mode on stdout.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import yaml  # type: ignore[import-untyped,unused-ignore]
from schema_search import SchemaSearch  # type: ignore[import-not-found,unused-ignore]
from schema_search.extractors.sqlalchemy import (  # type: ignore[import-not-found,unused-ignore]
    SQLAlchemyExtractor,
)
from sentence_transformers import (  # type: ignore[import-not-found,unused-ignore]
    SentenceTransformer,
)
from sqlalchemy import create_engine


def config(model: str) -> dict[str, Any]:
    """The repository's config.yml (the 3.1.0 wheel ships none): the local model, no
    cross-encoder, one FK hop, 20 results."""
    return {
        "logging": {"level": "WARNING"},
        "embedding": {"location": "memory", "model": model, "metric": "cosine",
                      "batch_size": 32, "show_progress": False, "cache_dir": "cache"},
        "chunking": {"strategy": "raw", "max_tokens": 256, "overlap_tokens": 50, "model": None},
        "search": {"strategy": "hybrid", "initial_top_k": 20, "rerank_top_k": 5,
                   "semantic_weight": 0.67, "hops": 1},
        "reranker": {"model": None},
        "schema": {"include_columns": True, "include_indices": True,
                   "include_foreign_keys": True, "include_constraints": True},
        "output": {"limit": 20, "format": "json"},
    }  # fmt: skip


class Files:
    """An extractor over several SQLite files, each schema named after its database (SQLite
    attaches at most 10 databases, so the stock extractor cannot hold a pooled catalog)."""

    def __init__(self, files: list[list[str]], settings: dict[str, Any]) -> None:
        self.parts = [
            (name, SQLAlchemyExtractor(create_engine("sqlite:///" + file), settings))
            for name, file in files
        ]

    def extract(self) -> dict[str, Any]:
        return {name: part.extract()["main"] for name, part in self.parts}


def main() -> None:
    job = json.load(sys.stdin)
    settings = config(job["model"])
    with open("config.yml", "w", encoding="utf-8") as handle:
        yaml.safe_dump(settings, handle)
    model = SentenceTransformer(job["model"])
    searches: dict[str, Any] = {}
    for key, files in job["groups"].items():
        search = SchemaSearch(create_engine(f"sqlite:///index-{len(searches)}"), "config.yml")
        search.extractor = Files(files, settings)
        search.index(force=True)
        search.embedding_cache.model = model  # one model for all databases
        searches[key] = search
    out: dict[str, dict[str, list[Any]]] = {}
    for mode in job["modes"]:
        for search in searches.values():
            search.search("warm up", limit=1, search_type=mode)
        rankings: list[list[str]] = []
        latencies: list[float] = []
        for key, question in job["questions"]:
            started = time.perf_counter()
            result = searches[key].search(question, limit=20, search_type=mode)
            latencies.append((time.perf_counter() - started) * 1000.0)
            rankings.append([item["table"] for item in result.results])
        out[mode] = {"rankings": rankings, "latencies": latencies}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
