"""Bounded table documents (spec 004): a few canonical documents per table, never one per column.

For each table (a :class:`~schemaseek.sources.records.TableRecord`: ``id``, ``name``,
``description``, ``columns`` with ``name``/``type``/``description``, optional ``primary_key``,
``foreign_keys``, ``schema``, ``database``, ``is_view``):

* one **identity** document: id = the table id, kind ``SQL_TABLE``, the table's name and
  description, members = its first :data:`IDENTITY_COLUMNS` column names; ``data`` as the
  single-document layout (``columns``, ``primary_key``, ``foreign_keys``, ``schema``,
  ``is_view``, ``database``) plus ``documents``, the ids of the table's other documents;
* **column facets**, kind ``SQL_COLUMN``, id ``<table id>#<facet>``, or ``<table id>#<facet>:<n>``
  (n = 1, 2, ...) when the facet has more than :data:`CHUNK` columns; members
  ``"name TYPE — description"``; ``data["columns"]`` lists the member column names;
* one **relationships** document when the table has foreign keys in either direction, kind
  ``SQL_TABLE``, id ``<table id>#relationships``, members ``a.x → b.y`` per one-hop key
  (``(inferred)`` appended to inferred ones), at most :data:`CHUNK`; ``data["relationships"]``
  lists them all.

Facet and relationship documents set ``target`` to the table id, so their hits count for the
table. A 300-column table yields 1 + about 6 + 1 documents.

**Facets.** Each column goes to the first facet whose rule matches, in this order (names are
compared case-insensitively after splitting camelCase and ``_``/space into words):

1. ``identifiers``: primary-key or foreign-key columns; names whose last word is ``id``,
   ``key``, ``uuid``, ``guid``, ``code``, ``number``, ``no``, ``num``, ``sk``, ``pk`` or
   ``fk`` (``customer_id``, ``CustomerID``, ``zip_code``); ``UUID`` types;
2. ``time``: date/time types (``DATE``, ``TIME``, ``TIMESTAMP*``, ``DATETIME``, ``INTERVAL``);
   names with a word ``date``, ``time``, ``timestamp``, ``year``, ``month``, ``day``, ``week``,
   ``quarter``, ``period``, ``hour``, or ending ``_at``/``_on``, ``dt`` (``created_at``);
3. ``categorical``: ``BOOLEAN`` types; names with a word ``status``, ``state``, ``type``,
   ``kind``, ``category``, ``class``, ``flag``, ``level``, ``tier``, ``segment``, ``gender``,
   ``country``, ``region``, ``currency``, ``grade``, ``rank``, ``group``, ``mode`` or starting
   ``is_``/``has_``;
4. ``measures``: numeric types (``INT*``, ``NUMBER``, ``NUMERIC``, ``DECIMAL``, ``REAL``,
   ``FLOAT``, ``DOUBLE``, ``MONEY``); names with a word ``amount``, ``price``, ``cost``,
   ``total``, ``qty``, ``quantity``, ``count``, ``sum``, ``avg``, ``rate``, ``pct``,
   ``percent``, ``score``, ``balance``, ``fee``, ``revenue``, ``weight``, ``height``;
5. ``text``: character types (``CHAR``, ``VARCHAR``, ``TEXT``, ``STRING``, ``CLOB``); names with a
   word ``name``, ``title``, ``description``, ``comment``, ``note``, ``text``, ``address``,
   ``email``, ``url``, ``label``;
6. ``other``: everything else (``JSON``, ``VARIANT``, ``ARRAY``, ``BLOB``, untyped).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.sources.records import (
    ColumnRecord,
    FacetData,
    RelationshipRecord,
    RelationshipsData,
    TableData,
    TableRecord,
)

__all__ = [
    "CHUNK",
    "FACETS",
    "IDENTITY_COLUMNS",
    "bounded_documents",
    "classify_column",
    "relationships_by_table",
    "table_documents",
]

CHUNK = 64
"""Columns per facet document (and members per relationships document)."""

IDENTITY_COLUMNS = 64
"""Column names on the identity document; the facets carry every column."""

FACETS = ("identifiers", "time", "categorical", "measures", "text", "other")
_LABELS = {
    "identifiers": "Identifier and key columns",
    "time": "Date and time columns",
    "categorical": "Category and status columns",
    "measures": "Measure columns",
    "text": "Text columns",
    "other": "Other columns",
}

_ID_WORDS = {"id", "key", "uuid", "guid", "code", "number", "no", "num", "sk", "pk", "fk"}
_TIME_WORDS = {
    "date", "time", "timestamp", "year", "month", "day", "week", "quarter", "period", "hour",
    "dt", "datetime",
}  # fmt: skip
_CATEGORY_WORDS = {
    "status", "state", "type", "kind", "category", "class", "flag", "level", "tier", "segment",
    "gender", "country", "region", "currency", "grade", "rank", "group", "mode",
}  # fmt: skip
_MEASURE_WORDS = {
    "amount", "price", "cost", "total", "qty", "quantity", "count", "sum", "avg", "rate", "pct",
    "percent", "score", "balance", "fee", "revenue", "weight", "height",
}  # fmt: skip
_TEXT_WORDS = {
    "name", "title", "description", "comment", "note", "text", "address", "email", "url", "label",
}  # fmt: skip
_TIME_TYPE = re.compile(r"DATE|TIME|INTERVAL", re.IGNORECASE)
_BOOL_TYPE = re.compile(r"^BOOL", re.IGNORECASE)
_NUMERIC_TYPE = re.compile(
    r"INT|NUMBER|NUMERIC|DECIMAL|REAL|FLOAT|DOUBLE|MONEY|SERIAL|HUGEINT", re.IGNORECASE
)
_TEXT_TYPE = re.compile(r"CHAR|TEXT|STRING|CLOB", re.IGNORECASE)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _words(name: str) -> list[str]:
    """``CustomerID`` → [customer, id]; ``order_date`` → [order, date]; ``T-BIL`` → [t, bil]."""
    return [w.lower() for w in _WORD.findall(name)]


def classify_column(name: str, type_: str = "", key: bool = False) -> str:
    """The facet of one column (module docstring); ``key`` marks PK/FK membership."""
    words = _words(name)
    last = words[-1] if words else ""
    lowered = name.lower()
    if key or last in _ID_WORDS or type_.upper().startswith("UUID"):
        return "identifiers"
    if (
        _TIME_TYPE.search(type_)
        or _TIME_WORDS.intersection(words)
        or lowered.endswith(("_at", "_on"))
    ):
        return "time"
    if (
        _BOOL_TYPE.search(type_)
        or _CATEGORY_WORDS.intersection(words)
        or lowered.startswith(("is_", "has_"))
    ):
        return "categorical"
    if _NUMERIC_TYPE.search(type_) or _MEASURE_WORDS.intersection(words):
        return "measures"
    if _TEXT_TYPE.search(type_) or _TEXT_WORDS.intersection(words):
        return "text"
    return "other"


def _member(column: ColumnRecord) -> str:
    text = f"{column['name']} {column.get('type') or ''}".strip()
    description = column.get("description") or ""
    return f"{text} — {description}" if description else text


def _relation_text(rel: RelationshipRecord) -> str:
    left = ", ".join(f"{rel['source']}.{c}" for c in rel["columns"])
    right = ", ".join(f"{rel['target']}.{c}" for c in rel["ref_columns"])
    return f"{left} → {right}" + (" (inferred)" if rel["inferred"] else "")


def relationships_by_table(edges: Iterable[Edge]) -> dict[str, list[RelationshipRecord]]:
    """Table id → its one-hop ``foreignKey`` relationships in both directions (self-references
    listed once), each ``{direction, source, target, columns, ref_columns, inferred}``."""
    found: dict[str, list[RelationshipRecord]] = {}
    for edge in edges:
        if edge.relation != Relation.FOREIGN_KEY:
            continue
        out: RelationshipRecord = {
            "direction": "out",
            "source": edge.source,
            "target": edge.target,
            "columns": list(edge.data.get("columns") or ()),
            "ref_columns": list(edge.data.get("ref_columns") or ()),
            "inferred": bool(edge.data.get("inferred")),
        }
        found.setdefault(edge.source, []).append(out)
        if edge.target != edge.source:
            found.setdefault(edge.target, []).append({**out, "direction": "in"})
    for rels in found.values():
        rels.sort(key=lambda r: (r["direction"] != "out", r["source"], r["target"], r["columns"]))
    return found


def _key_columns(table: TableRecord) -> set[str]:
    keys = set(table.get("primary_key") or ())
    for fk in table.get("foreign_keys") or ():
        keys.update(fk.get("columns") or ())
    return keys


def table_documents(
    table: TableRecord,
    source: str,
    relationships: Sequence[RelationshipRecord] = (),
    *,
    inferred_keys: Iterable[str] = (),
) -> list[Document]:
    """The bounded documents of one table: identity, facets, relationships (module docstring).

    ``relationships`` are this table's entries from :func:`relationships_by_table`;
    ``inferred_keys`` are column names that inferred foreign keys start from (they count as
    identifiers like declared ones).
    """
    table_id = str(table["id"])
    name = str(table["name"])
    keys = _key_columns(table) | set(inferred_keys)
    facets: dict[str, list[ColumnRecord]] = {f: [] for f in FACETS}
    for column in table.get("columns") or ():
        col_name = str(column["name"])
        facet = classify_column(col_name, str(column.get("type") or ""), col_name in keys)
        facets[facet].append(column)
    parts: list[Document] = []
    for facet in FACETS:
        columns = facets[facet]
        chunks = [columns[i : i + CHUNK] for i in range(0, len(columns), CHUNK)]
        for n, chunk in enumerate(chunks, start=1):
            suffix = facet if len(chunks) == 1 else f"{facet}:{n}"
            facet_data: FacetData = {
                "facet": facet,
                "chunk": n,
                "table": table_id,
                "columns": [str(c["name"]) for c in chunk],
            }
            parts.append(
                Document(
                    id=f"{table_id}#{suffix}",
                    kind=DocKind.SQL_COLUMN,
                    source=source,
                    name=name,
                    description=f"{_LABELS[facet]} of {name}",
                    members=tuple(_member(c) for c in chunk),
                    target=table_id,
                    data=dict(facet_data),
                )
            )
    if relationships:
        rels = [r.copy() for r in relationships]
        rel_data: RelationshipsData = {"table": table_id, "relationships": rels}
        parts.append(
            Document(
                id=f"{table_id}#relationships",
                kind=DocKind.SQL_TABLE,
                source=source,
                name=name,
                description=f"Relationships of {name}",
                members=tuple(_relation_text(r) for r in rels[:CHUNK]),
                target=table_id,
                data=dict(rel_data),
            )
        )
    data: TableData = {  # .get: tables from other passes may leave keys out (module docstring)
        "columns": table.get("columns"),
        "primary_key": table.get("primary_key"),
        "foreign_keys": table.get("foreign_keys"),
        "schema": table.get("schema"),
        "is_view": table.get("is_view"),
        "database": table.get("database"),
        "documents": [d.id for d in parts],
    }
    column_names = [str(c["name"]) for c in table.get("columns") or ()]
    identity = Document(
        id=table_id,
        kind=DocKind.SQL_TABLE,
        source=source,
        name=name,
        description=str(table.get("description") or ""),
        members=tuple(column_names[:IDENTITY_COLUMNS]),
        data=dict(data),
    )
    return [identity, *parts]


def bounded_documents(
    tables: Iterable[TableRecord], source: str, edges: Iterable[Edge] = ()
) -> list[Document]:
    """:func:`table_documents` for every table, relationships taken from ``edges``."""
    edge_list = list(edges)
    by_table = relationships_by_table(edge_list)
    inferred: dict[str, set[str]] = {}
    for edge in edge_list:
        if edge.relation == Relation.FOREIGN_KEY and edge.data.get("inferred"):
            inferred.setdefault(edge.source, set()).update(edge.data.get("columns") or ())
    documents: list[Document] = []
    for table in tables:
        table_id = str(table["id"])
        documents.extend(
            table_documents(
                table,
                source,
                by_table.get(table_id, ()),
                inferred_keys=inferred.get(table_id, ()),
            )
        )
    return documents
