"""SQL retrieval on reworded questions: the original wording beside our synonym and
no-column-mention rewordings (``bench/questions/sql_variants/``), same gold, same index.

One line per dataset, scope, wording and settings variant (hybrid, table gold). Variants are
``key=value`` settings changes as in ``bench/tune.py``. Vectors come from the on-disk cache;
the model is the settings' (``SCHEMASEEK_ONNX_MODEL=<dir>`` scores the model-directory option).

    .venv/bin/python bench/sql_variants_eval.py bird-dev spider1-dev --scope pooled
"""

from __future__ import annotations

import argparse
from pathlib import Path

from schemaseek.evaluation.datasets import (
    load_reworded_questions,
    load_sql_questions,
    resolve_dataset,
)
from schemaseek.evaluation.runner import evaluate
from schemaseek.sources.catalog import load_catalog
from tune import DATASETS, PrecomputedQueries, settings_provider, settings_variant

VARIANTS = Path(__file__).resolve().parent / "questions" / "sql_variants"
FILES = {"bird-dev": "bird_dev.jsonl", "spider1-dev": "spider_dev.jsonl"}
SHOWN = ("recall@5", "recall@10", "all_gold@10", "mrr")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+", choices=sorted(FILES))
    parser.add_argument("--scope", action="append", default=None)
    parser.add_argument("--variant", action="append", default=None)
    args = parser.parse_args()
    disk = settings_provider()
    for name in args.datasets:
        files = resolve_dataset(DATASETS / name)
        sources = load_catalog(files.catalog)
        sets = load_reworded_questions(VARIANTS / FILES[name], load_sql_questions(files.queries))
        provider = PrecomputedQueries(disk, [q.question for qs in sets.values() for q in qs])
        for variant in args.variant or ["base"]:
            settings = settings_variant(variant)
            for scope in args.scope or ["pooled", "per-source"]:
                for wording, questions in sets.items():
                    result = evaluate(
                        sources, questions, dataset=name, scope=scope, settings=settings,
                        provider=provider,
                    )  # fmt: skip
                    metrics = result.modes["hybrid"].metrics
                    cells = " ".join(f"{metrics[m]:.4f}" for m in SHOWN)
                    print(
                        f"{name:12} {scope:10} {wording:10} n={len(questions):3} {cells}  "
                        f"{variant}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
