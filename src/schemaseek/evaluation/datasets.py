"""Labelled question sets: the SQL datasets' ``queries.jsonl[.xz]`` and GraphQL question JSONL.

SQL questions (``shared/datasets`` format) carry their database (``source``) and gold tables
(``gold_tables``) or gold columns (``gold_columns``, ``<fqn>.<column>``). Documents are tables
for now, so ``gold="columns"`` maps every gold column to its table and scores at table level.
GraphQL questions are ``{"id", "question", "gold": [ids]}`` and have no source.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from schemaseek.errors import ConfigError, SourceError
from schemaseek.sources.catalog import iter_jsonl

__all__ = [
    "DatasetFiles",
    "GoldKind",
    "Question",
    "gold_label",
    "load_graphql_questions",
    "load_reworded_questions",
    "load_sql_questions",
    "resolve_dataset",
    "sample",
]

GoldKind = Literal["tables", "columns"]
SAMPLE_SEED = 0


@dataclass(frozen=True, slots=True)
class Question:
    """One labelled question: the ids that answer it, and the source it is scoped to."""

    id: str
    question: str
    gold: tuple[str, ...]
    source: str | None = None


@dataclass(frozen=True, slots=True)
class DatasetFiles:
    """The files of a dataset directory and its name (the directory's name)."""

    name: str
    catalog: Path
    queries: Path


def resolve_dataset(directory: str | Path) -> DatasetFiles:
    """Pick ``catalog.jsonl`` (else ``catalog_full.jsonl.xz``) and ``queries.jsonl`` (else
    ``queries_full.jsonl.xz``) in a dataset directory.

    Raises:
        ConfigError: the directory or one of the two files is missing.
    """
    root = Path(directory)
    if not root.is_dir():
        raise ConfigError(f"dataset directory not found: {root}")
    return DatasetFiles(
        name=root.resolve().name,
        catalog=_first(root, ("catalog.jsonl", "catalog_full.jsonl.xz")),
        queries=_first(root, ("queries.jsonl", "queries_full.jsonl.xz")),
    )


def _first(root: Path, names: Sequence[str]) -> Path:
    for name in names:
        if (root / name).is_file():
            return root / name
    raise ConfigError(f"{root} has none of {', '.join(names)}")


def gold_label(gold: GoldKind) -> str:
    """How the gold is described in results."""
    return "tables" if gold == "tables" else "columns (scored at table level)"


def load_sql_questions(
    path: str | Path, gold: GoldKind = "tables", limit: int | None = None
) -> list[Question]:
    """Questions of a datasets-format ``queries.jsonl[.xz]``.

    Args:
        path: the queries file.
        gold: ``"tables"`` (``gold_tables``) or ``"columns"`` (``gold_columns``, each mapped to
            its table's fqn, de-duplicated; a null ``gold_columns`` gives empty gold).
        limit: keep a deterministic sample of this many (:func:`sample`).

    Raises:
        SourceError: missing or garbled file or a row without ``id``/``source``/``question``.
        ConfigError: ``gold`` is neither ``"tables"`` nor ``"columns"``.
    """
    if gold not in ("tables", "columns"):
        raise ConfigError(f"gold must be 'tables' or 'columns', not {gold!r}")
    questions: list[Question] = []
    for number, row in iter_jsonl(path):
        try:
            tables = [str(t) for t in row.get("gold_tables") or ()]
            if gold == "tables":
                ids = _unique(tables)
            else:
                ids = _unique(_column_table(str(c), tables) for c in row.get("gold_columns") or ())
            questions.append(
                Question(str(row["id"]), str(row["question"]), tuple(ids), str(row["source"]))
            )
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{path}, line {number}: malformed question: {exc!r}") from None
    return sample(questions, limit)


def load_graphql_questions(path: str | Path, limit: int | None = None) -> list[Question]:
    """Questions of a JSONL file of ``{"id", "question", "gold": [ids]}`` (no source).

    Raises:
        SourceError: missing or garbled file, or a row without ``id``/``question``/``gold``.
    """
    questions: list[Question] = []
    for number, row in iter_jsonl(path):
        try:
            gold = row["gold"]
            if not isinstance(gold, list):
                raise TypeError("'gold' must be a list of ids")
            questions.append(
                Question(str(row["id"]), str(row["question"]), tuple(_unique(map(str, gold))))
            )
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{path}, line {number}: malformed question: {exc!r}") from None
    return sample(questions, limit)


def load_reworded_questions(
    path: str | Path, originals: Sequence[Question]
) -> dict[str, list[Question]]:
    """Rewordings of ``originals`` by wording: ``original`` (the originals reworded, in order
    of first mention) and one list per ``variant`` of the file's rows
    ``{"id", "original_id", "variant", "question"}``, each with its original's gold and source.

    Raises:
        SourceError: missing or garbled file, a malformed row, or an unknown ``original_id``.
    """
    by_id = {q.id: q for q in originals}
    out: dict[str, list[Question]] = {"original": []}
    seen: set[str] = set()
    for number, row in iter_jsonl(path):
        try:
            original = by_id[str(row["original_id"])]
            reworded = Question(
                str(row["id"]), str(row["question"]), original.gold, original.source
            )
            variant = str(row["variant"])
        except (KeyError, TypeError) as exc:
            raise SourceError(f"{path}, line {number}: malformed rewording: {exc!r}") from None
        if original.id not in seen:
            seen.add(original.id)
            out["original"].append(original)
        out.setdefault(variant, []).append(reworded)
    return out


def sample(questions: Sequence[Question], limit: int | None) -> list[Question]:
    """The first ``limit`` questions after a shuffle with seed 0, kept in file order.

    The same file and ``limit`` always give the same sample; ``None`` keeps everything.
    """
    if limit is None or limit >= len(questions):
        return list(questions)
    if limit < 0:
        raise ConfigError(f"the question limit must be >= 0, not {limit}")
    positions = list(range(len(questions)))
    random.Random(SAMPLE_SEED).shuffle(positions)
    return [questions[i] for i in sorted(positions[:limit])]


def _column_table(column: str, tables: Sequence[str]) -> str:
    """The table of a ``<fqn>.<column>`` id: the longest gold table it extends, else the part
    before the last dot (column names may themselves hold dots)."""
    owners = [t for t in tables if column.startswith(t + ".")]
    if owners:
        return max(owners, key=len)
    return column.rsplit(".", 1)[0]


def _unique(items: Iterable[Any]) -> list[str]:
    return list(dict.fromkeys(str(i) for i in items))
