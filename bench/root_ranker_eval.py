"""A learned order for GraphQL root fields, measured leave one schema out (not in the product).

The default ranks root fields by a hand-set formula (``query/graphql_priors.py``): the field's
own fused score, plus the hop-decayed lead to the best matching entity type, scaled by intent
and verb cues. This script asks whether a model that weighs those same facts, learned from our
labelled questions, orders the first ``--depth`` root fields better on schemas it did not see.

For every question the default search runs once (root fields only); a hook around
``apply_graphql_priors`` keeps what the priors saw, and each of the first ``--depth`` root
fields gets the features below (all read from the schema, the question's cues and the default
scores; nothing from the gold). A logistic regression (scikit-learn, L2, balanced classes) is
fitted on the gold / not-gold labels and reorders those root fields by its decision value.

* ``--loso`` (dev halves + GitLab/Saleor): per schema, a model fitted on the other seven;
* ``--held-out``: one model fitted on all dev questions, scored on the test halves, on
  Unraid and on the fresh questions of the six labelled sets. GitHub and Shopify are never run.

    .venv/bin/python bench/root_ranker_eval.py --loso
    .venv/bin/python bench/root_ranker_eval.py --held-out
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

import schemaseek.query.pipeline as pipeline
from graphql_eval import FRESH, LABELLED, TUNING, Labelled, build_index, load_questions
from schemaseek.config import SearchSettings, default_cache_dir
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.query.action_verbs import mutation_families, verb_families
from schemaseek.query.graphql_priors import apply_graphql_priors
from schemaseek.query.intent import QuestionCues
from schemaseek.signals.root_leads import RootLeads
from schemaseek.text import tokenize

FEATURES = (
    "own", "final", "rank_rr", "lead", "hops1", "hops2", "hops3", "nolead", "target_rr",
    "returns_rr", "mismatch", "mutation", "verb_mis", "verb_match", "viewer", "narrowing",
    "required", "single", "is_list", "name_overlap", "name_hit", "nargs",
)  # fmt: skip
"""own / final: the field's fused score before the priors and its score after them (each over
the best); rank_rr: 1 / (1 + rank) in the default order; lead, hops*: the best lead's evidence
and its hops (none within 3: nolead); target_rr / returns_rr: where the led-to type and the
returned type stand among entity types; mismatch / mutation / verb_*: intent and verb cues;
viewer; narrowing / required / nargs: the arguments; single / is_list: one item or a list;
name_overlap / name_hit: the question's stems among the field name's."""

_GRAPHQL = (DocKind.GRAPHQL_ROOT_FIELD, DocKind.GRAPHQL_TYPE, DocKind.GRAPHQL_FIELD)


@dataclass(slots=True)
class Seen:
    """What the priors saw in the latest search."""

    documents: Mapping[str, Document]
    fused: dict[str, float]
    out: dict[str, float]
    cues: QuestionCues
    leads: RootLeads
    settings: SearchSettings


SEEN: list[Seen] = []


def _recording(
    documents: Mapping[str, Document],
    fused: Mapping[str, float],
    cues: QuestionCues,
    settings: SearchSettings,
    **rest: Any,
) -> dict[str, float]:
    """``apply_graphql_priors`` as the pipeline calls it, keeping what it saw."""
    out = apply_graphql_priors(documents, fused, cues, settings, **rest)
    SEEN[:] = [Seen(documents, dict(fused), out, cues, rest["leads"], settings)]
    return out


def _name_stems(name: str) -> set[str]:
    return set(tokenize(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)))


def features(seen: Seen, ranked: Sequence[str], question: set[str]) -> list[list[float]]:
    """The :data:`FEATURES` of each root field of one search's ranking, best first (what is
    the same for the whole search is computed once)."""
    docs, fused, out, cues, leads, s = (
        seen.documents, seen.fused, seen.out, seen.cues, seen.leads, seen.settings,
    )  # fmt: skip
    before = max((v for k, v in fused.items() if k in docs and docs[k].kind in _GRAPHQL), default=1)
    roots = [v for k, v in out.items() if k in docs and docs[k].kind is DocKind.GRAPHQL_ROOT_FIELD]
    entities = sorted(
        (
            (k, v)
            for k, v in out.items()
            if k in docs
            and docs[k].kind is DocKind.GRAPHQL_TYPE
            and (docs[k].data.get("role") or "entity") == "entity"
        ),
        key=lambda item: -item[1],
    )
    place = {k: i for i, (k, _) in enumerate(entities)}
    closer = (
        dict.fromkeys(leads.viewer_roots(), s.viewer_hop_credit)
        if cues.for_self and s.viewer_hop_credit
        else None
    )
    best = leads.best(
        entities[: s.root_lead_targets], decay=s.root_lead_decay, max_hops=s.root_lead_hops,
        closer=closer,
    )  # fmt: skip
    top_root = max(roots, default=1) or 1
    return [
        _root_features(seen, root, rank, question, before or 1, top_root, place, best)
        for rank, root in enumerate(ranked)
    ]


def _root_features(
    seen: Seen,
    root: str,
    rank: int,
    question: set[str],
    before: float,
    top_root: float,
    place: Mapping[str, int],
    best: Mapping[str, tuple[float, str, int]],
) -> list[float]:
    docs, fused, out, cues, leads = seen.documents, seen.fused, seen.out, seen.cues, seen.leads
    evidence, target, hops = best.get(root, (0.0, "", 4))
    doc = docs[root]
    operation = doc.data.get("operation") or "query"
    args: Sequence[Mapping[str, Any]] = doc.data.get("args") or ()
    required = sum(1 for a in args if a.get("required"))
    named = str(doc.data.get("named_type") or "")
    returned = docs.get(named)
    wraps = returned.data.get("wraps") if returned is not None else None
    is_list = "[" in str(doc.data.get("return_type") or "") or bool(wraps)
    asked = verb_families(cues.verb)
    made = mutation_families(root) if operation == "mutation" else frozenset()
    stems = _name_stems(root.rsplit(".", 1)[-1])
    return [
        fused.get(root, 0.0) / before,
        out.get(root, 0.0) / top_root,
        1 / (1 + rank),
        evidence / before,
        float(hops == 1), float(hops == 2), float(hops == 3), float(hops > 3),
        1 / (1 + place.get(target, 99)),
        1 / (1 + place.get(str(wraps or named), 99)),
        float(operation != ("query" if cues.intent == "read" else "mutation")),
        float(operation == "mutation"),
        float(bool(asked and made and not made & asked)),
        float(bool(asked and made & asked)),
        float(root in leads.viewer_roots()),
        float(min(leads.narrowing_arguments(root), 3)),
        float(min(required, 3)),
        float(bool(required) and not is_list),
        float(is_list),
        len(stems & question) / max(1, len(stems)),
        float(bool(stems & question)),
        math.log1p(len(args)),
    ]  # fmt: skip


@dataclass(slots=True)
class Asked:
    """One question: its schema and kind, and its candidates' features and labels."""

    schema: str
    kind: str
    features: np.ndarray
    gold: np.ndarray


def collect(schemas: Sequence[str], split: str, depth: int) -> list[Asked]:
    """The default search for every question of ``split``, with its candidates' features."""
    disk = DiskCachedProvider(OnnxEmbeddingProvider(), default_cache_dir() / "embeddings")
    pipeline.apply_graphql_priors = _recording  # type: ignore[assignment]
    rows = []
    for schema in schemas:
        questions: list[Labelled] = [q for q in load_questions(schema) if q.split == split]
        if not questions:
            continue
        index = build_index(schema, questions, disk)
        for q in questions:
            ids = index.search(q.question, limit=depth, kinds=[DocKind.GRAPHQL_ROOT_FIELD]).ids()
            stems = set(tokenize(q.question))
            table = features(SEEN[0], ids, stems)
            rows.append(
                Asked(
                    schema, q.kind,
                    np.array(table, dtype=float).reshape(len(ids), len(FEATURES)),
                    np.array([r in q.roots for r in ids], dtype=bool),
                )
            )  # fmt: skip
    pipeline.apply_graphql_priors = apply_graphql_priors
    return rows


def fit(rows: Sequence[Asked], c: float) -> LogisticRegression:
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    model.fit(np.vstack([r.features for r in rows]), np.concatenate([r.gold for r in rows]))
    return model


def scores(rows: Sequence[Asked], model: LogisticRegression | None) -> tuple[float, float]:
    """Root hit@5 and MRR with the default order (``model`` None) or the learned one."""
    hits = mrr = 0.0
    for r in rows:
        if len(r.gold) == 0:
            continue
        order = np.arange(len(r.gold))
        if model is not None:
            order = np.argsort(-model.decision_function(r.features), kind="stable")
        golds = np.flatnonzero(r.gold[order])
        if len(golds):
            hits += golds[0] < 5
            mrr += 1 / (1 + golds[0])
    return hits / len(rows), mrr / len(rows)


def report(name: str, rows: Sequence[Asked], model: LogisticRegression | None) -> None:
    base, learned = scores(rows, None), scores(rows, model)
    print(f"  {name:24} n={len(rows):3}  default {base[0]:.3f} / {base[1]:.3f}"
          f"  learned {learned[0]:.3f} / {learned[1]:.3f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loso", action="store_true")
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    parser.add_argument("--depth", type=int, default=30, help="root fields reordered")
    args = parser.parse_args()
    dev = collect([*TUNING, *LABELLED], "dev", args.depth)
    print("root hit@5 / root MRR, the first --depth root fields reordered")
    if args.loso:
        print("leave one schema out (dev): a model fitted on the other schemas")
        held = []
        for schema in sorted({r.schema for r in dev}):
            rest = [r for r in dev if r.schema != schema]
            mine = [r for r in dev if r.schema == schema]
            model = fit(rest, args.c)
            report(schema, mine, model)
            held.append((scores(mine, None), scores(mine, model)))
        base = np.mean([h[0] for h in held], axis=0)
        learned = np.mean([h[1] for h in held], axis=0)
        print(f"  {'MEAN per schema':24}        default {base[0]:.3f} / {base[1]:.3f}"
              f"  learned {learned[0]:.3f} / {learned[1]:.3f}")  # fmt: skip
    model = fit(dev, args.c)
    report("dev, in sample", dev, model)
    print(
        "  weights: "
        + ", ".join(f"{f} {w:+.2f}" for f, w in zip(FEATURES, model.coef_[0], strict=True))
    )
    if args.held_out:
        for label, rows in (
            ("test halves", collect(LABELLED, "test", args.depth)),
            ("Unraid", collect(list(FRESH), "test", args.depth)),
            ("fresh questions", collect(LABELLED, "fresh", args.depth)),
        ):
            report(label, rows, model)
            for kind in sorted({r.kind for r in rows}):
                report(f"{label}, {kind}", [r for r in rows if r.kind == kind], model)


if __name__ == "__main__":
    main()
