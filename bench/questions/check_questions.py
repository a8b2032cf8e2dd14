#!/usr/bin/env python3
"""Validate a labelled question set (JSONL) against a GraphQL SDL schema.

Usage:
    python check_questions.py SCHEMA.graphql QUESTIONS.jsonl [--max-depth N] [--strict-reach]

Checks, per line:
  * the line is a JSON object with exactly the keys
    id, question, gold, gold_root_fields, gold_types
  * id is a unique non-empty string; question is a non-empty string
  * gold_root_fields is a non-empty list of "<RootType>.<field>" ids, where
    <RootType> is the schema's query, mutation or subscription type and the
    field exists on it
  * gold_types is a list of 1-3 names of named types that exist in the schema
  * gold equals the union of gold_root_fields and gold_types (order ignored,
    no duplicates)
Any of the above failing is an ERROR and the script exits with status 1.

Additionally (WARNING only, unless --strict-reach): every gold type should be
reachable from at least one gold root field by following output fields
(through lists, non-nulls, interfaces and unions) within --max-depth hops,
where stepping into a *Connection / *Edge wrapper type does not count as a hop.
This catches labels that point at a type the chosen entry point cannot reach.

Needs graphql-core (`pip install graphql-core`).
"""

import argparse
import json
import sys
from collections import deque

from graphql import build_schema
from graphql.type import (
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLUnionType,
    get_named_type,
)

REQUIRED_KEYS = {"id", "question", "gold", "gold_root_fields", "gold_types"}
#: Keys the newer sets carry (all of them or none): the kind of question and its half.
LABEL_KEYS = {"kind", "split"}
KINDS = ("vocabulary_gap", "exact_name", "conceptual", "multi_type")
SPLITS = ("dev", "test", "fresh", "fresh2", "fresh3")


def load_schema(path):
    with open(path, encoding="utf-8") as fh:
        sdl = fh.read()
    return build_schema(sdl, assume_valid_sdl=True)


def root_types(schema):
    roots = {}
    for t in (schema.query_type, schema.mutation_type, schema.subscription_type):
        if t is not None:
            roots[t.name] = t
    return roots


def expand(schema, named):
    """Concrete/abstract types one can 'be at' when a field returns `named`."""
    out = [named]
    if isinstance(named, GraphQLUnionType):
        out.extend(named.types)
    elif isinstance(named, GraphQLInterfaceType):
        out.extend(schema.get_implementations(named).objects)
        out.extend(schema.get_implementations(named).interfaces)
    return out


def is_wrapper(name):
    """Relay plumbing (FooConnection, FooEdge, FooCountableConnection, ...) costs no hop."""
    return name.endswith("Connection") or name.endswith("Edge")


def reachable(schema, start_type, max_depth):
    """Names of named types reachable from start_type within max_depth field hops.

    Hops into connection/edge wrapper types are free, so `project.issues.nodes`
    counts as one hop from Project to Issue. 0-1 BFS over (type, depth)."""
    seen = {}
    queue = deque()
    for t in expand(schema, start_type):
        if t.name not in seen:
            seen[t.name] = 0
            queue.append((t, 0))
    while queue:
        t, d = queue.popleft()
        if d > seen.get(t.name, d):
            continue
        if not isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
            continue
        for f in t.fields.values():
            nt = get_named_type(f.type)
            for x in expand(schema, nt):
                nd = d if is_wrapper(x.name) else d + 1
                if nd > max_depth:
                    continue
                if x.name not in seen or nd < seen[x.name]:
                    seen[x.name] = nd
                    if nd == d:
                        queue.appendleft((x, nd))
                    else:
                        queue.append((x, nd))
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("schema")
    ap.add_argument("questions")
    ap.add_argument(
        "--max-depth",
        type=int,
        default=4,
        help=(
            "hops from a root field's return type when checking reachability; "
            "connection/edge wrappers are free (default 4)"
        ),
    )
    ap.add_argument(
        "--strict-reach", action="store_true", help="treat unreachable gold types as errors"
    )
    args = ap.parse_args(argv)

    schema = load_schema(args.schema)
    roots = root_types(schema)
    type_map = {k: v for k, v in schema.type_map.items() if not k.startswith("__")}

    errors, warnings = [], []
    ids = set()
    n = 0
    reach_cache = {}
    labelled = {}

    with open(args.questions, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                errors.append(f"line {lineno}: blank line")
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                errors.append(f"line {lineno}: invalid JSON ({exc})")
                continue
            if not isinstance(obj, dict):
                errors.append(f"line {lineno}: not a JSON object")
                continue
            n += 1
            keys = set(obj)
            if keys not in (REQUIRED_KEYS, REQUIRED_KEYS | LABEL_KEYS):
                errors.append(
                    f"line {lineno}: keys {sorted(keys)} are neither {sorted(REQUIRED_KEYS)} "
                    f"nor those plus {sorted(LABEL_KEYS)}"
                )
                continue
            if keys & LABEL_KEYS:
                if obj["kind"] not in KINDS:
                    errors.append(f"line {lineno}: kind {obj['kind']!r} is not one of {KINDS}")
                if obj["split"] not in SPLITS:
                    errors.append(f"line {lineno}: split {obj['split']!r} is not one of {SPLITS}")
                key = (obj["split"], obj["kind"])
                labelled[key] = labelled.get(key, 0) + 1
            qid = obj["id"]
            tag = f"line {lineno} ({qid})"
            if not isinstance(qid, str) or not qid:
                errors.append(f"{tag}: id must be a non-empty string")
            elif qid in ids:
                errors.append(f"{tag}: duplicate id")
            ids.add(qid)
            if not isinstance(obj["question"], str) or not obj["question"].strip():
                errors.append(f"{tag}: question must be a non-empty string")
            lists_ok = True
            for k in ("gold", "gold_root_fields", "gold_types"):
                v = obj[k]
                if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                    errors.append(f"{tag}: {k} must be a list of non-empty strings")
                    lists_ok = False
                elif len(set(v)) != len(v):
                    errors.append(f"{tag}: {k} has duplicates")
            if not lists_ok:
                continue
            rfs, tys, gold = obj["gold_root_fields"], obj["gold_types"], obj["gold"]
            if not rfs:
                errors.append(f"{tag}: gold_root_fields is empty")
            if not 1 <= len(tys) <= 3:
                errors.append(f"{tag}: gold_types must have 1-3 entries, has {len(tys)}")
            if set(gold) != set(rfs) | set(tys):
                errors.append(
                    f"{tag}: gold != gold_root_fields U gold_types "
                    f"(missing {sorted((set(rfs) | set(tys)) - set(gold))}, "
                    f"extra {sorted(set(gold) - set(rfs) - set(tys))})"
                )
            root_ret = []
            for rf in rfs:
                if rf.count(".") != 1:
                    errors.append(f"{tag}: root field id {rf!r} is not '<RootType>.<field>'")
                    continue
                rt, fname = rf.split(".")
                if rt not in roots:
                    errors.append(
                        f"{tag}: {rf!r}: {rt!r} is not a root type (roots: {sorted(roots)})"
                    )
                    continue
                fld = roots[rt].fields.get(fname)
                if fld is None:
                    errors.append(f"{tag}: unknown root field {rf!r}")
                    continue
                root_ret.append(get_named_type(fld.type))
            for t in tys:
                if "." in t:
                    errors.append(f"{tag}: type id {t!r} contains a dot")
                elif t not in type_map:
                    errors.append(f"{tag}: unknown type {t!r}")
            # reachability (warning)
            for t in tys:
                if t not in type_map or not root_ret:
                    continue
                ok = False
                for rtype in root_ret:
                    if rtype.name not in reach_cache:
                        reach_cache[rtype.name] = reachable(schema, rtype, args.max_depth)
                    if t in reach_cache[rtype.name]:
                        ok = True
                        break
                if not ok:
                    msg = (
                        f"{tag}: type {t!r} not reachable within {args.max_depth} hops "
                        f"from any of {rfs}"
                    )
                    (errors if args.strict_reach else warnings).append(msg)

    if labelled:
        total = sum(labelled.values())
        gap = sum(v for (_, kind), v in labelled.items() if kind == "vocabulary_gap")
        if total != n:
            errors.append(f"{total} of {n} lines carry kind/split: all or none must")
        if gap * 2 < total:
            errors.append(f"only {gap} of {total} questions are vocabulary_gap (need half)")
        splits = {split for split, _ in labelled}
        for kind in KINDS:  # a held-out-only set (no dev split, e.g. unraid) has no halves
            dev, test = labelled.get(("dev", kind), 0), labelled.get(("test", kind), 0)
            if "dev" in splits and abs(dev - test) > 1:
                warnings.append(f"kind {kind}: {dev} dev vs {test} test (unbalanced halves)")
        print("per split and kind:", dict(sorted(labelled.items())))
    for w in warnings:
        print("WARNING", w)
    for e in errors:
        print("ERROR", e)
    print(
        f"{args.questions}: {n} questions, {len(errors)} errors, {len(warnings)} warnings "
        f"(schema {args.schema}; roots {', '.join(sorted(roots))})"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
