"""Training triples for fine-tuning the embedding model on schema search (an experiment).

For each labelled question of the named GraphQL schemas (``bench/questions/<schema>.jsonl``,
every split), writes one JSON line per question and kind (root fields, types): the question,
the embedded texts of its gold documents, and the texts of the wrong documents today's default
ranks highest (hard negatives). The held-out schemas (GitHub, Shopify) are refused; a schema's
questions are written only when it is named, so a fold leaves its evaluation schemas out by not
naming them.

    .venv/bin/python tools/finetune_pairs.py --graphql gitlab saleor linear monday \\
        --out /tmp/ft/fold1.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tools")]

from finetune_data import Row  # noqa: E402

from graphql_eval import HELD_OUT, Labelled, build_index, load_questions  # noqa: E402
from schemaseek.documents import DocKind  # noqa: E402
from schemaseek.index import SchemaIndex  # noqa: E402
from tune import settings_provider  # noqa: E402

NEGATIVES = 8


def ranked_rows(index: SchemaIndex, schema: str, questions: list[Labelled]) -> list[Row]:
    """Two rows per question (root fields, types): its gold documents' embedded texts and the
    texts of the wrong documents of that kind the index ranks highest (up to ``NEGATIVES``)."""
    docs = index.documents
    rows: list[Row] = []
    for q in questions:
        for kind, gold in (
            (DocKind.GRAPHQL_ROOT_FIELD, q.roots),
            (DocKind.GRAPHQL_TYPE, q.types),
        ):
            pos = [docs[g].embedding_text() for g in gold if g in docs]
            if not pos:
                continue
            ranked = index.search(q.question, limit=NEGATIVES + len(gold), kinds=[kind]).ids()
            neg = [docs[d].embedding_text() for d in ranked if d not in gold][:NEGATIVES]
            rows.append({"schema": schema, "id": q.id, "q": q.question, "pos": pos, "neg": neg})
    return rows


def graphql_rows(schema: str) -> list[Row]:
    """Every labelled question of ``schema`` (all splits), ranked by today's default."""
    questions = load_questions(schema)
    return ranked_rows(build_index(schema, questions, settings_provider()), schema, questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphql", nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    refused = [s for s in args.graphql if s in HELD_OUT]
    if refused:
        sys.exit(f"{refused} are held out for independent evaluation")
    rows = [r for s in args.graphql for r in graphql_rows(s)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
