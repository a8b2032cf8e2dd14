"""Whole SQL table records for tests that care about a few keys only."""

from __future__ import annotations

from collections.abc import Sequence

from schemaseek.sources.records import ColumnRecord, ForeignKeyRecord, TableRecord


def table_record(
    table_id: str,
    name: str | None = None,
    *,
    columns: Sequence[ColumnRecord | str] = (),
    schema: str | None = None,
    database: str | None = None,
    description: str = "",
    primary_key: Sequence[str] = (),
    foreign_keys: Sequence[ForeignKeyRecord] = (),
) -> TableRecord:
    """A :class:`TableRecord` (a column given as a bare name gets no type or description)."""
    return {
        "id": table_id,
        "name": name if name is not None else table_id.rsplit(".", 1)[-1],
        "schema": schema,
        "database": database,
        "is_view": False,
        "description": description,
        "columns": [{"name": c} if isinstance(c, str) else c for c in columns],
        "primary_key": list(primary_key),
        "foreign_keys": list(foreign_keys),
    }
