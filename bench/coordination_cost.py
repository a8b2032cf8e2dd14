"""Cost of keyword coordination on the SQL benchmarks' catalogs.

One keyword-only index per dataset (no model: coordination re-scores BM25 hits, so the vector
side would only add noise); 200 sampled questions searched with coordination off
(``weights.coordination`` 0), fused (the default: the coordinated SQL hits beside the plain
list, ``coordination_power``) and in place (``keyword_coordination`` at ``--power``),
interleaved in a rotating order question by question, three rounds; wall and CPU time per
search (``time.perf_counter``, ``time.thread_time``), p50 and p95, and the load average.

    .venv/bin/python bench/coordination_cost.py bird-dev spider1-dev spider2-snow
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time

from schemaseek.config import SearchSettings
from schemaseek.evaluation.datasets import load_sql_questions, resolve_dataset, sample
from schemaseek.index import SchemaIndex
from schemaseek.query.state import IndexParts, Mode
from schemaseek.sources.catalog import load_catalog
from tune import DATASETS

ROUNDS = 3


def timed_search(
    index: SchemaIndex, question: str, chosen: SearchSettings, mode: Mode = "keyword"
) -> tuple[float, float]:
    """Wall and CPU milliseconds of one search in ``mode`` under ``chosen`` settings."""

    def swap(parts: IndexParts) -> IndexParts:
        return dataclasses.replace(parts, settings=chosen)

    wall, cpu = time.perf_counter(), time.thread_time()
    index.search(question, limit=10, mode=mode, instrument=swap)
    return (time.perf_counter() - wall) * 1000.0, (time.thread_time() - cpu) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--power", type=float, default=3.0)
    args = parser.parse_args()
    off = {"coordination": 0.0}
    settings = {
        "off": SearchSettings(weights=off),
        "fused": SearchSettings(),
        "in-place": SearchSettings(weights=off, keyword_coordination=args.power),
    }
    for name in args.datasets:
        files = resolve_dataset(DATASETS / name)
        index = SchemaIndex(load_catalog(files.catalog), provider=None)
        index.build()
        questions = [q.question for q in sample(load_sql_questions(files.queries), 200)]

        took = interleaved(index, questions, settings, "keyword")
        print_row(name, len(index.documents), took)


def interleaved(
    index: SchemaIndex, questions: list[str], settings: dict[str, SearchSettings], mode: Mode
) -> dict[str, list[tuple[float, float]]]:
    """Wall and CPU milliseconds of every question under every settings label, after 20 warm
    searches: the labels in a rotating order question by question, ``ROUNDS`` rounds."""
    labels = list(settings)
    for question in questions[:20]:  # warm: lazily read texts, clause caches, word vectors
        timed_search(index, question, settings[labels[-1]], mode)
    took: dict[str, list[tuple[float, float]]] = {label: [] for label in labels}
    for round_ in range(ROUNDS):
        for at, question in enumerate(questions):
            shift = (round_ + at) % len(labels)
            for label in labels[shift:] + labels[:shift]:
                took[label].append(timed_search(index, question, settings[label], mode))
    return took


def print_row(name: str, documents: int, took: dict[str, list[tuple[float, float]]]) -> None:
    """One line: p50 and p95 wall and CPU milliseconds per label, and the load average."""
    cells = "  ".join(
        f"{label} {kind} p50 {statistics.median(v):.3f} p95 {statistics.quantiles(v, n=20)[18]:.3f}"
        for label, rows in took.items()
        for kind, v in (("wall", [r[0] for r in rows]), ("cpu", [r[1] for r in rows]))
    )
    print(
        f"{name:13} {documents:5} documents  ms/search  {cells}  load {os.getloadavg()[0]:.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
