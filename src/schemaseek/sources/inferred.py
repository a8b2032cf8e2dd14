"""Foreign keys inferred from column names, for catalogs that declare none (Snowflake).

:func:`infer_foreign_keys` reads :class:`~schemaseek.sources.records.TableRecord` tables (``id``,
``name``, ``schema``, optional ``database``, ``columns``, ``primary_key``, ``foreign_keys``) and
returns ``foreignKey`` edges with ``data = {"columns": [col], "ref_columns": [ref], "inferred":
True, "name": None, "rule": ...}``. The rules, exactly:

1. **Candidate columns.** A column named ``<X>_ID`` (any case: ``ARTIST_ID``, ``artist_id``);
   or ``<X>Id``/``<X>ID`` in camelCase (a lower-case letter or digit right before ``Id``/``ID``:
   ``artistId``, ``CustomerID``); or, as catalogs that fold case write them, ``<X>ID`` glued in
   one case (``productid``, ``CUSTOMERID``: letters and digits only, ``X`` at least three
   characters). Columns already in a declared foreign key of the table are skipped: declared
   keys come first. Only a table named after ``X`` (rule 3) makes a candidate an edge.
2. **Names compared.** Table names and ``X`` are compared case-insensitively with ``_``, ``-``
   and spaces removed (``GasStation`` = ``gas_station`` = ``GASSTATION``).
3. **Target names.** In this order: ``X``, ``XS`` (plural), ``DIM_X``, ``DIM_XS``, ``FACT_X``,
   ``FACT_XS``.
4. **Scope.** Candidate tables in the same schema (and database) win; if there are none, tables
   in the same database; if none, any table, but only when exactly one table in the whole
   catalog has that name (a guess across unrelated databases would be noise). Within a scope the
   first name form in the order of rule 3 that names a table wins; ties go to the smaller id.
5. **No self-edges.** When the table itself qualifies (its own name is ``X`` or one of the
   forms), the column is the table's own identifier, not a reference: ``ARTIST.ARTIST_ID``
   never points at ``ARTIST`` or at an ``ARTIST`` table elsewhere.
6. **Referenced column.** The target's column with the same name (case-insensitive) when it has
   one, else its single primary-key column, else its column named ``ID``; a target with none of
   these gets no edge (a join needs an ON clause).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from schemaseek.documents import Edge, Relation
from schemaseek.sources.records import TableRecord

__all__ = ["infer_foreign_keys", "reference_name"]

_SNAKE = re.compile(r"^(?P<x>.+?)_ID$", re.IGNORECASE)
_CAMEL = re.compile(r"^(?P<x>.*[a-z0-9])(?:Id|ID)$")
_GLUED_LOWER = re.compile(r"^(?P<x>[a-z][a-z0-9]{2,})id$")
_GLUED_UPPER = re.compile(r"^(?P<x>[A-Z][A-Z0-9]{2,})ID$")
_FORMS = ("{x}", "{x}s", "dim{x}", "dim{x}s", "fact{x}", "fact{x}s")


def _norm(name: str) -> str:
    return re.sub(r"[_\-\s]", "", name).casefold()


def reference_name(column: str) -> str | None:
    """``X`` of a ``<X>_ID`` / ``<X>Id`` column, normalised (rule 2), or ``None``."""
    match = (
        _SNAKE.match(column)
        or _CAMEL.match(column)
        or _GLUED_LOWER.match(column)
        or _GLUED_UPPER.match(column)
    )
    if match is None:
        return None
    x = _norm(match.group("x"))
    return x or None


def _place(table: TableRecord) -> tuple[str | None, str | None]:
    return table.get("database"), table.get("schema")


def _ref_column(target: TableRecord, column: str) -> str | None:
    names = [str(c["name"]) for c in target.get("columns") or ()]
    same = next((n for n in names if n.casefold() == column.casefold()), None)
    if same is not None:
        return same
    pk = list(target.get("primary_key") or ())
    if len(pk) == 1:
        return str(pk[0])
    return next((n for n in names if n.casefold() == "id"), None)


def infer_foreign_keys(tables: Iterable[TableRecord]) -> list[Edge]:
    """Inferred ``foreignKey`` edges (module docstring), in table and column order."""
    table_list = list(tables)
    by_name: dict[str, list[TableRecord]] = {}
    for table in table_list:
        by_name.setdefault(_norm(str(table["name"])), []).append(table)
    for found in by_name.values():
        found.sort(key=lambda t: str(t["id"]))
    edges: list[Edge] = []
    for table in table_list:
        declared = {c for fk in table.get("foreign_keys") or () for c in fk.get("columns") or ()}
        for column in table.get("columns") or ():
            name = str(column["name"])
            x = reference_name(name)
            if x is None or name in declared:
                continue
            target, rule = _resolve(table, x, by_name)
            if target is None:
                continue
            ref = _ref_column(target, name)
            if ref is None:
                continue
            data: dict[str, Any] = {
                "columns": [name],
                "ref_columns": [ref],
                "inferred": True,
                "name": None,
                "rule": rule,
            }
            edges.append(Edge(str(table["id"]), str(target["id"]), Relation.FOREIGN_KEY, data))
    return edges


def _resolve(
    table: TableRecord, x: str, by_name: Mapping[str, list[TableRecord]]
) -> tuple[TableRecord | None, str]:
    forms = [(form.format(x=x), form) for form in _FORMS]
    own = _norm(str(table["name"]))
    if any(key == own for key, _ in forms):
        return None, ""  # the table's own identifier (rule 5)
    database, schema = _place(table)
    scopes = (
        ("same schema", lambda t: _place(t) == (database, schema)),
        ("same database", lambda t: t.get("database") == database),
    )
    for scope, keep in scopes:
        for key, form in forms:
            found = [t for t in by_name.get(key, ()) if keep(t)]
            if found:
                return found[0], f"{form.replace('{x}', 'X')} in {scope}"
    for key, form in forms:
        found = list(by_name.get(key, ()))
        if len(found) == 1:
            return found[0], f"{form.replace('{x}', 'X')} anywhere"
        if found:
            return None, ""  # ambiguous across databases
    return None, ""
