"""Fit the question adapter (schemaseek.embedding.query_adapter) on labelled GraphQL questions.

For each named schema (``bench/questions/<schema>.jsonl``, the named splits), the questions and
every root-field and type document are embedded by the model the settings name (the packaged
MiniLM unless ``SCHEMASEEK_ONNX_MODEL`` says otherwise; vectors come from the on-disk cache),
and a map is fitted so that each question's vector lands nearer its gold documents
(``tools/query_adapter_fit.py``). The held-out schemas (GitHub, Shopify) are refused.

The packaged adapter is the default command's output (``make query-adapter``): the dev halves
of the six labelled schemas with halves, and GitLab and Saleor, whose sets are all dev.
A fold for scoring leaves its schemas out by not naming them:

    .venv/bin/python tools/train_query_adapter.py --schema linear monday artsy gitlab saleor \\
        --splits all --out /tmp/fold.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tools")]

from query_adapter_fit import PENALTY, Group, fit, group  # noqa: E402

from graphql_eval import HELD_OUT, build_index, load_questions  # noqa: E402
from schemaseek.documents import DocKind  # noqa: E402
from schemaseek.embedding.disk_cache import DiskCachedProvider  # noqa: E402
from schemaseek.embedding.query_adapter import PACKAGED, QueryAdapter, save_adapter  # noqa: E402
from tune import settings_provider  # noqa: E402

PACKAGED_SCHEMAS = (
    "hashnode", "buildkite", "opencollective", "linear", "monday", "artsy", "gitlab", "saleor",
)  # fmt: skip
PACKAGED_PATH = ROOT / "src" / "schemaseek" / "embedding" / PACKAGED


def schema_groups(schema: str, splits: set[str] | None, disk: DiskCachedProvider) -> list[Group]:
    """Two groups for ``schema`` (root fields, types): its questions of ``splits`` (None: all)
    against every document of that kind."""
    labelled = load_questions(schema)
    questions = [q for q in labelled if splits is None or q.split in splits]
    if not questions:
        return []
    documents = build_index(schema, questions, disk).documents
    vectors = disk.embed([q.question for q in questions])
    groups = []
    for kind in (DocKind.GRAPHQL_ROOT_FIELD, DocKind.GRAPHQL_TYPE):
        ids = [d for d, doc in documents.items() if doc.kind is kind]
        row = {d: i for i, d in enumerate(ids)}
        candidates = disk.embed([documents[d].embedding_text() for d in ids])
        roots = kind is DocKind.GRAPHQL_ROOT_FIELD
        gold = [[row[g] for g in (q.roots if roots else q.types) if g in row] for q in questions]
        made = group(vectors, candidates, gold)
        if len(made.questions):
            groups.append(made)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schema", nargs="+", default=list(PACKAGED_SCHEMAS))
    parser.add_argument("--splits", default="dev", help="comma-separated, or 'all'")
    parser.add_argument("--penalty", type=float, default=PENALTY)
    parser.add_argument("--out", type=Path, default=PACKAGED_PATH)
    args = parser.parse_args()
    refused = [s for s in args.schema if s in HELD_OUT]
    if refused:
        sys.exit(f"{refused} are held out for independent evaluation")
    splits = None if args.splits == "all" else set(args.splits.split(","))
    disk = settings_provider()
    groups = [g for s in args.schema for g in schema_groups(s, splits, disk)]
    count = sum(len(g.questions) for g in groups)
    print(f"fitting on {count} question-kind rows from {len(args.schema)} schemas", flush=True)
    matrix = fit(groups, penalty=args.penalty)
    trained_on = f"{','.join(args.schema)} [{args.splits}] penalty={args.penalty}"
    save_adapter(QueryAdapter(disk.model_id, matrix.astype("float32"), trained_on), args.out)
    print(f"{disk.model_id}: {trained_on} -> {args.out}")


if __name__ == "__main__":
    main()
