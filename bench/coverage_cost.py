"""Cost of the coverage weight (``lexical_coverage_power``, schemaseek.query.coverage) on the
SQL benchmarks' catalogs.

One hybrid index per dataset over the on-disk vector cache, question vectors embedded once
ahead (so a search times the pipeline, not the model); 200 sampled questions, each searched
with the weight off and on, interleaved in a rotating order question by question, three
rounds; wall and CPU time per search
(``time.perf_counter``, ``time.thread_time``), p50 and p95, and the load average.

    .venv/bin/python bench/coverage_cost.py bird-dev spider1-dev
"""

from __future__ import annotations

import argparse

from coordination_cost import interleaved, print_row
from schemaseek.config import SearchSettings
from schemaseek.evaluation.datasets import load_sql_questions, resolve_dataset, sample
from schemaseek.index import SchemaIndex
from schemaseek.sources.catalog import load_catalog
from tune import DATASETS, PrecomputedQueries, settings_provider


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+")
    args = parser.parse_args()
    settings = {
        "off": SearchSettings(lexical_coverage_power=0.0),
        "on": SearchSettings(),
    }
    disk = settings_provider()
    for name in args.datasets:
        files = resolve_dataset(DATASETS / name)
        questions = [q.question for q in sample(load_sql_questions(files.queries), 200)]
        provider = PrecomputedQueries(disk, questions)
        index = SchemaIndex(load_catalog(files.catalog), provider=provider)
        index.build()
        took = interleaved(index, questions, settings, "hybrid")
        print_row(name, len(index.documents), took)


if __name__ == "__main__":
    main()
