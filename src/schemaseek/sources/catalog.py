"""Catalog source: a JSON Lines table catalog (``catalog.jsonl``, ``.jsonl.xz``) → table documents.

The format is the one of the evaluation datasets (``shared/datasets/README.md``), one table per
line::

    {"source": db_id, "database": str, "schema": str|null, "table": str, "fqn": str,
     "description": str|null,
     "columns": [{"name": str, "type": str|null, "description": str|null}, ...],
     "foreign_keys": [{"columns": [...], "ref_table_fqn": fqn|null, "ref_columns": [...]}]}

Every distinct ``source`` becomes one :class:`SourceSchema` (in order of first appearance) with
one ``SQL_TABLE`` document per line: id = ``fqn``, name = ``table``, members formatted exactly as
:mod:`schemaseek.sources.sql` formats reflected columns, ``data = {"columns", "schema",
"database"}``. Declared foreign keys whose ``ref_table_fqn`` is a table of the same source become
``foreignKey`` edges (``data = {"columns", "ref_columns", "inferred": False, ...}``).
``SourceSchema.raw["tables"]`` holds the tables in the SQL source's layout, so passes written
for reflected catalogs (inferred joins) work on these too. Extra keys are ignored.

The file is streamed line by line; ``.xz`` files are decompressed on the fly.
"""

from __future__ import annotations

import dataclasses
import json
import lzma
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import IO, Any

from schemaseek.errors import SourceError
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.sources.records import ColumnRecord, ForeignKeyRecord, TableData, TableRecord
from schemaseek.sources.sql import foreign_key_edges, table_document

__all__ = ["iter_jsonl", "load_catalog"]


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a ``.jsonl`` or ``.jsonl.xz`` file.

    Raises:
        SourceError: the file is missing or unreadable, or a line is not a JSON object; the
            message names the file and the line number.
    """
    file = Path(path)
    if not file.is_file():
        raise SourceError(f"{file}: file not found")
    number = 0
    try:
        with _open_text(file) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SourceError(f"{file}, line {number}: invalid JSON: {exc.msg}") from None
                if not isinstance(item, dict):
                    raise SourceError(f"{file}, line {number}: expected a JSON object")
                yield number, item
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as exc:
        raise SourceError(f"{file}, line {number + 1}: cannot read the file: {exc}") from None


def load_catalog(path: str | Path, sources: Collection[str] | None = None) -> list[SourceSchema]:
    """Read a catalog file into one :class:`SourceSchema` per ``source`` (module docstring).

    Args:
        path: ``catalog.jsonl`` or ``catalog.jsonl.xz``.
        sources: keep only these sources (db ids); ``None`` keeps every source.

    Raises:
        SourceError: missing or garbled file, missing keys, or a ``(source, fqn)`` pair that
            appears twice; the message names the file and the line number.
    """
    wanted = None if sources is None else set(sources)
    tables: dict[str, list[TableRecord]] = {}
    signatures: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    file = Path(path)
    for number, row in iter_jsonl(file):
        try:
            source = str(row["source"])
            if wanted is not None and source not in wanted:
                continue
            table = _table(row)
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(f"{file}, line {number}: malformed catalog row: {exc!r}") from None
        key = (source, table["id"])
        if key in seen:
            raise SourceError(f"{file}, line {number}: table {table['id']!r} repeats in {source!r}")
        seen.add(key)
        tables.setdefault(source, []).append(table)
        signatures.setdefault(source, []).append(json.dumps(row, sort_keys=True))
    return [_schema(name, rows, signatures[name]) for name, rows in tables.items()]


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _table(row: dict[str, Any]) -> TableRecord:
    """A catalog row in the SQL source's table layout (``SourceSchema.raw["tables"]``)."""
    columns: list[ColumnRecord] = [
        {
            "name": str(col["name"]),
            "type": _text(col.get("type")),
            "description": _text(col.get("description")),
        }
        for col in row.get("columns") or ()
    ]
    foreign: list[ForeignKeyRecord] = [
        {
            "name": None,
            "columns": [str(c) for c in fk.get("columns") or ()],
            "ref_table": fk.get("ref_table_fqn"),
            "ref_name": None,
            "ref_columns": [str(c) for c in fk.get("ref_columns") or ()],
        }
        for fk in row.get("foreign_keys") or ()
    ]
    return {
        "id": str(row["fqn"]),
        "name": str(row["table"]),
        "schema": row.get("schema"),
        "database": row.get("database"),
        "is_view": False,
        "description": _text(row.get("description")),
        "columns": columns,
        "primary_key": [],
        "foreign_keys": foreign,
    }


def _schema(name: str, tables: list[TableRecord], signatures: list[str]) -> SourceSchema:
    documents = []
    for table in tables:
        doc = table_document(table, name)
        data: TableData = {
            "columns": table["columns"],
            "schema": table["schema"],
            "database": table["database"],
        }
        documents.append(dataclasses.replace(doc, data=dict(data)))
    return SourceSchema(
        name=name,
        kind="sql",
        documents=documents,
        edges=foreign_key_edges(tables),
        schema_hash=stable_hash(signatures),
        raw={"tables": tables},
    )
