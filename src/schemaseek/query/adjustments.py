"""Score adjustments after ranking: join propagation, source cohesion, facet → column mapping.

Each uses what the schema says, never similarity: join propagation follows real (or explicitly
inferred) foreign keys; source cohesion favours the leading hit's source when several are
searched; column mapping reads a facet document's member columns.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemaseek.documents import DocKind, Document, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.query.filters import SearchFilter
from schemaseek.sources.records import ColumnRecord, facet_data, table_data
from schemaseek.text import tokenize

Ranked = list[tuple[str, float]]


def propagate_joins(
    graph: SchemaGraph,
    documents: Mapping[str, Document],
    search_filter: SearchFilter,
    notes: dict[str, str],
    ranked: Ranked,
    *,
    weight: float,
    anchors: int,
    referencing_share: float = 1.0,
) -> Ranked:
    """Tables joined by a foreign key to the leading hits gain part of their score.

    Scores are taken relative to the best hit. Each of the first ``anchors`` hits votes, with
    its relative score, for every table it shares a declared (or explicitly inferred) foreign
    key with; a table keeps its two strongest votes, and ``weight`` times their sum is added to
    its own relative score. A table the question never matched can so rise next to the tables
    it joins, and one that joins several strong hits (a bridge) more than one that joins a
    single hit. Counting only two votes keeps hubs joined to everything from floating up.

    A vote counts in full for a table the hit references (its lookup: where the names of the
    hit's keys live, which a question filtering by name needs) and ``referencing_share`` of it
    for a table that references the hit (one of its children, of which a hub has many).
    ``notes`` gets the reason for each table whose score was raised.
    """
    if not ranked or weight <= 0 or anchors <= 0:
        return ranked
    top = ranked[0][1]
    if top <= 0:
        return ranked
    votes: dict[str, dict[str, float]] = {}
    for anchor, score in ranked[:anchors]:
        for other, relation, direction in graph.neighbors(anchor):
            if relation != Relation.FOREIGN_KEY or other == anchor:
                continue
            doc = documents.get(other)
            if doc is None or not search_filter.allows(doc):
                continue
            share = 1.0 if direction == "out" else referencing_share
            cast = votes.setdefault(other, {})
            cast[anchor] = max(cast.get(anchor, 0.0), share * score / top)
    if not votes:
        return ranked
    scores = {doc_id: score / top for doc_id, score in ranked}
    for other, cast in votes.items():
        strongest = sorted(cast.items(), key=lambda item: (-item[1], item[0]))[:2]
        scores[other] = scores.get(other, 0.0) + weight * sum(v for _, v in strongest)
        notes.setdefault(other, f"joins {strongest[0][0]} by a foreign key")
    return _rescaled(scores, top)


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
        members: list[str] = list(facet_data(facet)["columns"])
        members.sort(key=lambda c: -len(words.intersection(tokenize(c))))
        for position, column in enumerate(members):
            column_id = f"{facet.target}.{column}"
            if column_id in scores:
                continue
            # keep the facet's order among its columns without passing the next facet
            scores[column_id] = score * (1.0 - 1e-6 * position)
            detail = described.get(column)
            description = detail.get("description") if detail else None
            type_ = detail.get("type") if detail else None
            made[column_id] = Document(
                id=column_id,
                kind=DocKind.SQL_COLUMN,
                source=facet.source,
                name=column,
                description=str(description or ""),
                members=(str(type_ or ""),),
                target=facet.target,
                data={"table": facet.target, "facet": facet.data.get("facet"), **(detail or {})},
            )
    return scores, made


def _column_details(card: Document | None) -> dict[str, ColumnRecord]:
    """The table card's columns by name (none when the card keeps no column details)."""
    if card is None:
        return {}
    columns = table_data(card).get("columns") or []
    return {str(c.get("name")): c for c in columns if isinstance(c, dict)}


def favour_leading_source(
    documents: Mapping[str, Document], ranked: Ranked, *, weight: float, window: int = 1
) -> Ranked:
    """Items of the sources the leading hits come from gain up to ``weight`` (relative to the
    best score).

    A question is nearly always about one database or API; when several are searched together,
    an item beside the best hits is likelier to be wanted than an equally scored one elsewhere.
    With ``window`` 1 the best hit's source gains ``weight``; with a larger window each source
    gains ``weight`` × its share of the evidence, the sum of its items' relative scores among
    the first ``window``, against the best source's: a source that many leading hits come
    from outweighs one that a single hit (one shared word) comes from. Within one source the
    order does not change.
    """
    if len(ranked) < 2 or weight <= 0:
        return ranked
    top = ranked[0][1]
    if top <= 0 or documents.get(ranked[0][0]) is None:
        return ranked
    evidence: dict[str | None, float] = {}
    for doc_id, score in ranked[: max(1, window)]:
        source = _source(documents, doc_id)
        evidence[source] = evidence.get(source, 0.0) + max(score, 0.0) / top
    best = max(evidence.values())
    lifted = {
        doc_id: score / top + weight * evidence.get(_source(documents, doc_id), 0.0) / best
        for doc_id, score in ranked
    }
    return _rescaled(lifted, top)


def _source(documents: Mapping[str, Document], doc_id: str) -> str | None:
    doc = documents.get(doc_id)
    return doc.source if doc is not None else None


def _rescaled(relative: Mapping[str, float], top: float) -> Ranked:
    """Scores relative to the best one, sorted (ties by id) and put back on the input's scale."""
    order = sorted(relative.items(), key=lambda item: (-item[1], item[0]))
    return [(doc_id, score * top) for doc_id, score in order]
