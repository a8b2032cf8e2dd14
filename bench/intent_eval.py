"""Read or action: how well the question's intent is told, and what a learned cue would change.

The intent rule (``query/intent.py``) is a verb list extended with the dev halves' misses, so
dev cannot judge it. This script measures it where it was not written: a question is an
action when every gold root field is a mutation. It also tries a logistic regression on the
question's MiniLM vector (scikit-learn, C 1, balanced classes), fitted on the dev questions
(leave one schema out on dev, all of dev for the held-out sets), combined with the rule:

* ``hard``: an action when the rule or the classifier (p > 0.5) says so;
* ``soft``: for a question the rule reads as a read, mutations are scaled by
  w + (1 − w)·p instead of w (``intent_mismatch_weight``).

Root hit@5 / root MRR for the default, hard and soft; GitHub and Shopify are never run.

    .venv/bin/python bench/intent_eval.py --split dev
    .venv/bin/python bench/intent_eval.py --split test --split fresh
    .venv/bin/python bench/intent_eval.py --schema unraid --split test
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

import schemaseek.query.pipeline as pipeline
from graphql_eval import FRESH, LABELLED, TUNING, Labelled, build_index, load_questions
from schemaseek.config import SearchSettings, default_cache_dir
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.evaluation.metrics import hit_at, reciprocal_rank
from schemaseek.query.graphql_priors import apply_graphql_priors
from schemaseek.query.intent import QuestionCues, question_cues

MODES = ("default", "hard", "soft")
ASKED: dict[str, Any] = {"p": 0.0, "mode": "default"}
"""The question being searched: the classifier's p(action) and the mode."""


def _with_learned_intent(
    documents: Mapping[str, Document],
    fused: Mapping[str, float],
    cues: QuestionCues,
    settings: SearchSettings,
    **rest: Any,
) -> dict[str, float]:
    """``apply_graphql_priors`` with the intent the current mode gives the question."""
    p, mode = float(ASKED["p"]), ASKED["mode"]
    if cues.intent == "read" and mode == "hard" and p > 0.5:
        cues = dataclasses.replace(cues, intent="action")
    elif cues.intent == "read" and mode == "soft":
        w = settings.intent_mismatch_weight
        settings = settings.model_copy(update={"intent_mismatch_weight": w + (1 - w) * p})
    return apply_graphql_priors(documents, fused, cues, settings, **rest)


def is_action(question: Labelled) -> bool:
    return all(root.startswith("Mutation.") for root in question.roots)


def fit(disk: DiskCachedProvider, questions: Sequence[Labelled]) -> LogisticRegression:
    vectors = np.asarray(disk.embed([q.question for q in questions]))
    labels = np.array([is_action(q) for q in questions])
    return LogisticRegression(C=1.0, class_weight="balanced", max_iter=5000).fit(vectors, labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schema", action="append", default=None)
    parser.add_argument("--split", action="append", choices=("dev", "test", "fresh", "fresh2"))
    args = parser.parse_args()
    schemas = args.schema or [*TUNING, *LABELLED]
    if any(s not in (*TUNING, *LABELLED, *FRESH) for s in schemas):
        raise SystemExit(f"unknown or held-out schema among {schemas}")
    disk = DiskCachedProvider(OnnxEmbeddingProvider(), default_cache_dir() / "embeddings")
    dev = {s: [q for q in load_questions(s) if q.split == "dev"] for s in (*TUNING, *LABELLED)}
    everything = fit(disk, [q for qs in dev.values() for q in qs])
    pipeline.apply_graphql_priors = _with_learned_intent  # type: ignore[assignment]
    for split in args.split or ["dev"]:
        totals: dict[str, list[tuple[float, float]]] = {m: [] for m in MODES}
        rule = [0, 0, 0, 0]  # actions found, actions, reads taken for actions, reads
        for schema in schemas:
            questions = [q for q in load_questions(schema) if q.split == split]
            if not questions:
                continue
            # on dev, the classifier never saw the schema it is scored on
            model = everything
            if split == "dev":
                model = fit(disk, [q for s, qs in dev.items() if s != schema for q in qs])
            vectors = np.asarray(disk.embed([q.question for q in questions]))
            chances = model.predict_proba(vectors)[:, 1]
            index = build_index(schema, questions, disk)
            for q in questions:
                said = question_cues(q.question).intent == "action"
                rule[0 if is_action(q) else 2] += said
                rule[1 if is_action(q) else 3] += 1
            cells = []
            for mode in MODES:
                rows = []
                for q, p in zip(questions, chances, strict=True):
                    ASKED.update(p=float(p), mode=mode)
                    ids = index.search(
                        q.question, limit=20, kinds=[DocKind.GRAPHQL_ROOT_FIELD]
                    ).ids()
                    rows.append((hit_at(ids, q.roots, 5), reciprocal_rank(ids, q.roots)))
                totals[mode] += rows
                hit, mrr = np.mean(rows, axis=0)
                cells.append(f"{mode} {hit:.3f} / {mrr:.3f}")
            print(f"{split:6} {schema:16} n={len(questions):3}  " + "  ".join(cells), flush=True)
        if not totals["default"]:
            continue
        cells = [f"{m} {np.mean(r, axis=0)[0]:.3f} / {np.mean(r, axis=0)[1]:.3f}" for m, r in
                 totals.items()]  # fmt: skip
        print(f"{split:6} {'ALL':16} n={len(totals['default']):3}  " + "  ".join(cells))
        print(f"{split:6} the rule: {rule[0]} of {rule[1]} actions found, "
              f"{rule[2]} of {rule[3]} reads taken for actions")  # fmt: skip
    pipeline.apply_graphql_priors = apply_graphql_priors


if __name__ == "__main__":
    main()
