"""Result expansion after ranking: join completion and facet → column mapping.

Both use what the schema says, never similarity: join completion follows real (or explicitly
inferred) foreign keys; column mapping reads a facet document's member columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemaseek.documents import DocKind, Document
from schemaseek.filters import SearchFilter
from schemaseek.graph import SchemaGraph
from schemaseek.text import tokenize

Ranked = list[tuple[str, float]]


def complete_joins(
    graph: SchemaGraph,
    documents: Mapping[str, Document],
    search_filter: SearchFilter,
    notes: dict[str, str],
    ranked: Ranked,
    *,
    anchors: int,
    after: int,
) -> Ranked:
    """The tables joined by a foreign key to the top ``anchors`` hits follow the first
    ``after`` hits. Questions that span tables name one of them most clearly; its neighbours
    over a declared (or inferred) key are the likeliest partners. ``notes`` gets the reason."""
    head = ranked[:after]
    seen = {d for d, _ in head}
    scores = dict(ranked)
    partners: Ranked = []
    for anchor, _score in ranked[:anchors]:
        neighbours = [
            other for other, relation, _ in graph.neighbors(anchor)
            if relation == "foreignKey" and other not in seen
        ]  # fmt: skip
        neighbours.sort(key=lambda d: -scores.get(d, 0.0))
        for other in neighbours:
            doc = documents.get(other)
            if doc is None or not search_filter.allows(doc):
                continue
            seen.add(other)
            partners.append((other, scores.get(other, 0.0)))
            notes.setdefault(other, f"joins {anchor} by a foreign key")
    tail = [(d, s) for d, s in ranked[after:] if d not in seen]
    return head + partners + tail


def expand_columns(
    documents: Mapping[str, Document], fused: Mapping[str, float], query: str
) -> tuple[dict[str, float], dict[str, Document]]:
    """When columns are asked for, a column-facet hit stands for its member columns.

    Each member column of a hit facet becomes a ``sql_column`` result ``<table id>.<column>``
    with the facet's score, columns whose words the question uses first. Returns the scores
    and the column documents made for them (they are not indexed on their own)."""
    words = set(tokenize(query))
    scores: dict[str, float] = {}
    made: dict[str, Document] = {}
    for doc_id, score in sorted(fused.items(), key=lambda item: -item[1]):
        facet = documents.get(doc_id)
        if facet is None or not facet.target or "columns" not in facet.data:
            continue
        card = documents.get(facet.target)
        described = _column_details(card)
        members: list[str] = list(facet.data["columns"])
        members.sort(key=lambda c: -len(words.intersection(tokenize(c))))
        for position, column in enumerate(members):
            column_id = f"{facet.target}.{column}"
            if column_id in scores:
                continue
            # keep the facet's order among its columns without passing the next facet
            scores[column_id] = score * (1.0 - 1e-6 * position)
            detail = described.get(column, {})
            made[column_id] = Document(
                id=column_id,
                kind=DocKind.SQL_COLUMN,
                source=facet.source,
                name=column,
                description=str(detail.get("description") or ""),
                members=(str(detail.get("type") or ""),),
                target=facet.target,
                data={"table": facet.target, "facet": facet.data.get("facet"), **detail},
            )
    return scores, made


def _column_details(card: Document | None) -> dict[str, dict[str, Any]]:
    if card is None:
        return {}
    return {str(c.get("name")): c for c in card.data.get("columns", []) if isinstance(c, dict)}
