#!/usr/bin/env python3
"""Validate hand-written SQL question variants against their original benchmark questions.

Usage:
    python check_variants.py DATASET_DIR VARIANTS.jsonl

DATASET_DIR holds ``catalog.jsonl`` and ``queries.jsonl`` in the shared/datasets format
(for example ``shared/datasets/spider1-dev``). Each line of VARIANTS.jsonl is

    {"id": str, "original_id": str, "source": db_id,
     "variant": "synonym" | "no_columns", "question": str}

Errors (any of them makes the script exit with status 1):
  * the line is not a JSON object with exactly those keys, or a value is not a string
  * the id is empty, repeated, or does not start with ``<original_id>-``
  * the original_id is not in queries.jsonl, or source differs from the original's source
  * the variant is unknown, or the same (original_id, variant) pair occurs twice
  * the question is empty or identical to the original (ignoring case and spacing)
  * synonym: the variant has as many schema words as the original, or more (an original with
    none needs a variant with none)
  * no_columns: a gold column name of the original appears in the variant as a whole token
    sequence (case-insensitive, plurals tolerated)

A "schema word" is a token of the question that equals a token of any table or column name of
the question's source. Questions and names are tokenised the same way: camelCase, underscores,
spaces and other non-alphanumerics split tokens, and everything is lowercased. A token matches
when it, or it with a plural ending stripped ("s", "es", "ies" -> "y"), equals a name token or
that token with its plural ending stripped. Tokens of two characters or fewer and the words in
STOP_WORDS are ignored.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

KEYS = frozenset({"id", "original_id", "source", "variant", "question"})
VARIANTS = ("synonym", "no_columns")

#: Generic words that occur in many names but carry no schema-specific meaning.
STOP_WORDS = frozenset(
    {"the", "and", "for", "from", "with", "per", "name", "number", "num", "other"}
)

_CAMEL_LOWER_UPPER = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Split on camelCase, underscores, spaces and punctuation; lowercase the pieces."""
    text = _CAMEL_ACRONYM.sub(r"\1 \2", _CAMEL_LOWER_UPPER.sub(r"\1 \2", text))
    return [tok for tok in _NON_ALNUM.split(text.lower()) if tok]


def forms(token: str) -> frozenset[str]:
    """The token and its singular candidates (a plural 's', 'es' or 'ies' stripped)."""
    singulars: set[str] = set()
    if token.endswith("s") and not token.endswith("ss"):
        singulars.add(token[:-1])
        if token.endswith("es"):
            singulars.add(token[:-2])
        if token.endswith("ies"):
            singulars.add(token[:-3] + "y")
    # "ids" -> "id" is kept; a one-letter leftover ("as" -> "a") is not.
    return frozenset({token} | {form for form in singulars if len(form) >= 2})


def is_ignored(token: str) -> bool:
    """Short tokens and stop words (in any plural form) never count as schema words."""
    return len(token) <= 2 or not forms(token).isdisjoint(STOP_WORDS)


def tokens_match(a: str, b: str) -> bool:
    return not forms(a).isdisjoint(forms(b))


@dataclass
class Original:
    qid: str
    source: str
    question: str
    gold_columns: list[str]


@dataclass
class Dataset:
    originals: dict[str, Original]
    #: source -> every singular form of every table/column-name token of that source
    schema_forms: dict[str, frozenset[str]]


def read_jsonl(path: Path) -> Iterable[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def load_dataset(directory: Path) -> Dataset:
    names: dict[str, set[str]] = defaultdict(set)
    for table in read_jsonl(directory / "catalog.jsonl"):
        source = str(table["source"])
        names[source].add(str(table["table"]))
        columns = table.get("columns") or []
        assert isinstance(columns, list)
        names[source].update(str(column["name"]) for column in columns)
    schema_forms: dict[str, frozenset[str]] = {}
    for source, source_names in names.items():
        found: set[str] = set()
        for name in source_names:
            for token in tokenize(name):
                if not is_ignored(token):
                    found |= forms(token)
        schema_forms[source] = frozenset(found)
    originals: dict[str, Original] = {}
    for query in read_jsonl(directory / "queries.jsonl"):
        gold = query.get("gold_columns") or []
        assert isinstance(gold, list)
        originals[str(query["id"])] = Original(
            qid=str(query["id"]),
            source=str(query["source"]),
            question=str(query["question"]),
            gold_columns=[str(column) for column in gold],
        )
    return Dataset(originals=originals, schema_forms=dict(schema_forms))


def schema_words(question: str, schema_forms: frozenset[str]) -> list[str]:
    """Tokens of the question that are schema words (with repeats)."""
    return [
        token
        for token in tokenize(question)
        if not is_ignored(token) and not forms(token).isdisjoint(schema_forms)
    ]


def contains_sequence(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    for start in range(len(haystack) - len(needle) + 1):
        window = haystack[start : start + len(needle)]
        if all(tokens_match(a, b) for a, b in zip(window, needle, strict=True)):
            return True
    return False


def leaked_columns(question: str, gold_columns: list[str]) -> list[str]:
    """Gold column names (last dotted part) whose token sequence occurs in the question."""
    tokens = tokenize(question)
    leaked: list[str] = []
    for column in sorted({full.rsplit(".", 1)[-1] for full in gold_columns}):
        if contains_sequence(tokens, tokenize(column)):
            leaked.append(column)
    return leaked


def normalize(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    per_variant: Counter[str] = field(default_factory=Counter)
    schema_before: list[int] = field(default_factory=list)
    schema_after: list[int] = field(default_factory=list)
    synonym_zero: int = 0
    originals: set[str] = field(default_factory=set)


def check_line(
    lineno: int,
    raw: str,
    dataset: Dataset,
    seen_ids: set[str],
    seen_pairs: set[tuple[str, str]],
    report: Report,
) -> None:
    def error(message: str) -> None:
        report.errors.append(f"line {lineno}: {message}")

    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        error(f"malformed JSON ({exc.msg})")
        return
    if not isinstance(obj, dict):
        error("not a JSON object")
        return
    if set(obj) != KEYS:
        error(f"keys must be exactly {sorted(KEYS)}, got {sorted(obj)}")
        return
    if not all(isinstance(obj[key], str) for key in KEYS):
        error("every value must be a string")
        return
    vid, original_id, source = obj["id"], obj["original_id"], obj["source"]
    variant, question = obj["variant"], obj["question"]
    if not vid.strip():
        error("empty id")
    elif vid in seen_ids:
        error(f"duplicate id {vid}")
    seen_ids.add(vid)
    if not vid.startswith(f"{original_id}-"):
        error(f"id {vid} does not start with '{original_id}-'")
    if variant not in VARIANTS:
        error(f"{vid}: unknown variant {variant!r}")
        return
    report.per_variant[variant] += 1
    report.originals.add(original_id)
    if (original_id, variant) in seen_pairs:
        error(f"{vid}: a second {variant} variant of {original_id}")
    seen_pairs.add((original_id, variant))
    original = dataset.originals.get(original_id)
    if original is None:
        error(f"{vid}: unknown original_id {original_id}")
        return
    if source != original.source:
        error(f"{vid}: source {source!r} is not the original's {original.source!r}")
        return
    if not question.strip():
        error(f"{vid}: empty question")
        return
    if normalize(question) == normalize(original.question):
        error(f"{vid}: question is identical to the original")
        return
    if variant == "synonym":
        schema = dataset.schema_forms.get(source, frozenset())
        before = schema_words(original.question, schema)
        after = schema_words(question, schema)
        report.schema_before.append(len(before))
        report.schema_after.append(len(after))
        report.synonym_zero += not after
        # An original without schema words cannot lose any: its variant must stay at none.
        if len(after) >= max(len(before), 1):
            error(f"{vid}: {len(after)} schema words {after} vs {len(before)} in the original")
    else:
        leaked = leaked_columns(question, original.gold_columns)
        if leaked:
            error(f"{vid}: names gold column(s) {leaked}")


def check_file(dataset: Dataset, path: Path) -> Report:
    report = Report()
    seen_ids: set[str] = set()
    seen_pairs: set[tuple[str, str]] = set()
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if raw.strip():
                check_line(lineno, raw, dataset, seen_ids, seen_pairs, report)
            else:
                report.errors.append(f"line {lineno}: blank line")
    return report


def print_summary(path: Path, report: Report) -> None:
    for message in report.errors:
        print(f"ERROR {message}")
    print(
        f"{path}: {sum(report.per_variant.values())} variants"
        f" of {len(report.originals)} original questions"
    )
    for variant in VARIANTS:
        print(f"  {variant}: {report.per_variant[variant]}")
    if report.schema_before:
        n = len(report.schema_before)
        print(
            f"  synonym schema words per question: {mean(report.schema_before):.2f} original"
            f" -> {mean(report.schema_after):.2f} variant"
            f" ({report.synonym_zero}/{n} variants have none)"
        )
    print(f"  errors: {len(report.errors)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset_dir", type=Path, help="dir with catalog.jsonl and queries.jsonl")
    parser.add_argument("variants", type=Path, help="the variants JSONL file to check")
    args = parser.parse_args(argv)
    dataset = load_dataset(args.dataset_dir)
    report = check_file(dataset, args.variants)
    print_summary(args.variants, report)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
