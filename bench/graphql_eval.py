"""GraphQL retrieval quality per schema, half and kind of question, for settings variants.

Each question set in ``bench/questions/<schema>.jsonl`` is asked twice: ranked among root
fields (gold = the acceptable entry points, metric hit@5) and among types (gold = the types,
metric recall@10). Sets with ``kind``/``split`` labels report each half and each kind apart;
GitLab and Saleor (no labels) count as tuning data (``dev``). Variants are ``key=value`` settings
changes as in ``bench/tune.py``. Document and question vectors come from the on-disk cache;
the embedding model is the settings' (``SCHEMASEEK_ONNX_MODEL=<dir>`` scores the model-directory
option, fused with MiniLM at ``SCHEMASEEK_ONNX_MODEL_SHARE``).

The two schemas held out for independent evaluation (GitHub, Shopify) are refused. Unraid is
our own held-out-only set (``test``, no dev half): run only when named, never with
``--split dev``. The six labelled sets also hold ``fresh`` questions (session 15), written
after their test halves had been run with candidates several times, and those six and Unraid
``fresh2`` questions (session 16, 10 of 24 actions each) and ``fresh3`` questions (session 17,
a natural 5 of 24 actions each): held out, like Unraid.

    .venv/bin/python bench/graphql_eval.py --split dev --variant base --variant 'weights.reach=1'
    .venv/bin/python bench/graphql_eval.py --schema linear --split test --by-kind
    .venv/bin/python bench/graphql_eval.py --schema unraid --split test --by-kind
    .venv/bin/python bench/graphql_eval.py --split fresh --by-kind
    .venv/bin/python bench/graphql_eval.py --split fresh2 --by-intent
    .venv/bin/python bench/graphql_eval.py --split fresh3 --by-intent
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from schemaseek.documents import DocKind
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.evaluation.metrics import hit_at, recall_at, reciprocal_rank
from schemaseek.index import SchemaIndex
from schemaseek.query.intent import question_intent
from schemaseek.query.state import IndexParts
from schemaseek.sources.graphql import load_sdl
from tune import PrecomputedQueries, settings_provider, settings_variant

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS_DIR = ROOT.parent / "shared" / "datasets" / "graphql"
QUESTIONS = ROOT / "bench" / "questions"
TUNING = ("gitlab", "saleor")
LABELLED = ("linear", "monday", "artsy", "hashnode", "buildkite", "opencollective")
HELD_OUT = ("github", "shopify_admin")  # independent evaluation only: never run here
# held out by us: no dev half, run only by name (--schema unraid --split test), never tuned on
FRESH = ("unraid",)


@dataclass(frozen=True, slots=True)
class Labelled:
    """One question with its gold and labels."""

    id: str
    question: str
    roots: tuple[str, ...]
    types: tuple[str, ...]
    kind: str
    split: str


def load_questions(schema: str) -> list[Labelled]:
    out = []
    for line in (QUESTIONS / f"{schema}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(
                Labelled(
                    row["id"],
                    row["question"],
                    tuple(row["gold_root_fields"]),
                    tuple(row["gold_types"]),
                    row.get("kind", "unlabelled"),
                    row.get("split", "dev"),
                )
            )
    return out


@dataclass(slots=True)
class Scores:
    """Per-question scores, grouped later."""

    rows: list[tuple[str, str, str, dict[str, float]]]  # schema, split, kind, metrics


def score_schema(
    index: SchemaIndex, schema: str, questions: list[Labelled], variant: str
) -> tuple[list[tuple[str, str, str, dict[str, float]]], float]:
    """Every question of ``schema`` asked under ``variant``'s settings: the index is built
    once with the defaults and each search runs on its state with the variant's settings
    (so a variant may change search-time settings only; ``reranker=none`` drops the
    reranker)."""
    settings = settings_variant(variant)

    def swap(parts: IndexParts) -> IndexParts:
        reranker = None if settings.reranker in ("", "none", "off") else parts.reranker
        return dataclasses.replace(parts, settings=settings, reranker=reranker)

    rows = []
    took = []
    for q in questions:
        started = time.thread_time()
        roots = index.search(
            q.question, limit=20, kinds=[DocKind.GRAPHQL_ROOT_FIELD], instrument=swap
        ).ids()
        types = index.search(
            q.question, limit=20, kinds=[DocKind.GRAPHQL_TYPE], instrument=swap
        ).ids()
        took.append((time.thread_time() - started) * 500.0)  # ms per search
        metrics = {
            "root_hit@5": hit_at(roots, q.roots, 5),
            "root_mrr": reciprocal_rank(roots, q.roots),
            "type_recall@10": recall_at(types, q.types, 10),
            "type_mrr": reciprocal_rank(types, q.types),
        }
        rows.append((schema, q.split, q.kind, metrics))
    return rows, statistics.median(took)


def build_index(schema: str, questions: list[Labelled], disk: DiskCachedProvider) -> SchemaIndex:
    source = load_sdl(SCHEMAS_DIR / f"{schema}.graphql", schema)
    provider = PrecomputedQueries(disk, [q.question for q in questions])
    index = SchemaIndex([source], provider=provider)
    index.build()
    return index


METRICS = ("root_hit@5", "root_mrr", "type_recall@10", "type_mrr")


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {m: sum(r[m] for r in rows) / len(rows) for m in METRICS} if rows else {}


def objective(metrics: dict[str, float]) -> float:
    """What a variant is chosen by: root-field hit@5 plus type recall@10."""
    return metrics["root_hit@5"] + metrics["type_recall@10"]


def print_loso(results: dict[str, dict[str, dict[str, float]]], schemas: list[str]) -> None:
    """For each schema, the variant with the best mean objective over the *other* schemas,
    and that variant's scores on the held-out one (an out-of-sample figure)."""
    print("leave one schema out: variant chosen on the others -> held-out scores")
    held: list[dict[str, float]] = []
    for out in schemas:
        others = [s for s in schemas if s != out]

        def score(variant: str, others: list[str] = others) -> float:
            return sum(objective(results[variant][s]) for s in others) / len(others)

        chosen = max(results, key=score)
        held.append(results[chosen][out])
        cells = " ".join(f"{v:.3f}" for v in results[chosen][out].values())
        print(f"  {out:16} {cells}  chosen: {chosen}")
    cells = " ".join(f"{v:.3f}" for v in mean(held).values())
    print(f"  {'MEAN held-out':16} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schema", action="append", default=None)
    parser.add_argument(
        "--split", choices=("dev", "test", "fresh", "fresh2", "fresh3", "all"), default="all"
    )
    parser.add_argument("--variant", action="append", default=None)
    parser.add_argument("--by-kind", action="store_true", help="one line per kind of question")
    parser.add_argument(
        "--by-intent",
        action="store_true",
        help="one line for actions (mutations), one for reads; actions the rule finds or misses",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--loso",
        action="store_true",
        help="leave one schema out: per schema, the variant best on the others, scored on it",
    )
    args = parser.parse_args()
    schemas = args.schema or [*TUNING, *LABELLED]
    refused = [s for s in schemas if s in HELD_OUT]
    if refused:
        sys.exit(f"{refused} are held out for independent evaluation")
    if args.split == "dev" and any(s in FRESH for s in schemas):
        sys.exit(f"{list(FRESH)} have no dev half: they are held out, not tuned on")
    disk = settings_provider()
    results: dict[str, dict[str, dict[str, float]]] = {}
    variants = args.variant or ["base"]
    grouped: dict[str, dict[str, list[dict[str, float]]]] = {v: defaultdict(list) for v in variants}
    for schema in schemas:
        questions = [q for q in load_questions(schema) if args.split in ("all", q.split)]
        if not questions:  # GitLab and Saleor have no test half
            continue
        index = build_index(schema, questions, disk)
        for variant in variants:
            rows, p50 = score_schema(index, schema, questions, variant)
            into = grouped[variant]
            for q, (name, _split, kind, metrics) in zip(questions, rows, strict=True):
                into[name].append(metrics)
                into["ALL"].append(metrics)
                if args.by_kind:
                    into[f"{name}/{kind}"].append(metrics)
                    into[f"ALL/{kind}"].append(metrics)
                if args.by_intent:  # and, for actions, whether the intent rule finds them
                    acts = all(root.startswith("Mutation.") for root in q.roots)
                    into[f"ALL/{'action' if acts else 'read'}"].append(metrics)
                    if acts:
                        found = question_intent(q.question) == "action"
                        into[f"ALL/action/{'found' if found else 'missed'}"].append(metrics)
            cells = " ".join(f"{v:.3f}" for v in mean(into[schema]).values())
            print(
                f"{schema:16} n={len(rows):3} {cells}  cpu p50 {p50:5.1f}ms  {variant}", flush=True
            )
    for variant in variants:
        into = grouped[variant]
        for key in sorted(k for k in into if k.startswith("ALL") or "/" in k):
            cells = " ".join(f"{v:.3f}" for v in mean(into[key]).values())
            print(f"{key:16} n={len(into[key]):3} {cells}  {variant}")
        results[variant] = {k: mean(v) for k, v in into.items()}
    if args.loso:
        print_loso(results, [s for s in schemas if s in results[variants[0]]])
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
