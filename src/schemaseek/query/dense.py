"""The vector signal's list: the question's vector against the document vectors.

The packaged question adapter (:mod:`schemaseek.embedding.query_adapter`) was fitted on
GraphQL questions against GraphQL documents, and on SQL catalogs it moves nothing for the
better (bench/QUALITY.md, session 21). So GraphQL documents are ranked by the mapped vector and
every other document by the question's own; an index holding both runs both searches and
merges them by cosine. Each list loses its weak hits against its own vector's background.
"""

from __future__ import annotations

import numpy as np

from schemaseek.documents import GRAPHQL_KINDS
from schemaseek.embedding.query_adapter import QueryAdapter, adapter_for
from schemaseek.query.state import IndexParts, SearchRun
from schemaseek.signals.vector_kernels import Vectors
from schemaseek.signals.weak_hits import cut_weak_hits

__all__ = ["SCOPED_VECTOR_LIMIT", "adapter_of", "dense_entries"]

# a source-scoped search scores the vectors of its sources directly up to this many rows, so it
# ranks every one of them, not only those among the whole index's nearest
SCOPED_VECTOR_LIMIT = 20_000

Entries = list[tuple[str, float]]


def adapter_of(parts: IndexParts) -> QueryAdapter | None:
    """The adapter the settings name for the index's model (raises ``ConfigError`` when a
    named one was fitted for another model: the caller's error, not a failed search)."""
    if parts.embedder is None:
        return None
    embedder = parts.embedder
    return adapter_for(parts.settings.query_adapter, embedder.model_id, embedder.dimensions)


def dense_entries(
    parts: IndexParts,
    run: SearchRun,
    query_vector: Vectors,
    adapter: QueryAdapter | None,
    depth: int,
) -> Entries:
    """The nearest documents (best first, at most ``depth``), GraphQL ones by the adapted
    vector when there is an adapter."""
    if adapter is None:
        return _cut(parts, *_nearest(parts, run, query_vector, depth))
    graphql, other = _families(parts, run)
    lists: list[Entries] = []
    if graphql:
        mapped = _cut(parts, *_nearest(parts, run, adapter.apply(query_vector), depth))
        lists.append([e for e in mapped if _is_graphql(parts, e[0])] if other else mapped)
    if other:
        plain = _cut(parts, *_nearest(parts, run, query_vector, depth))
        lists.append([e for e in plain if not _is_graphql(parts, e[0])] if graphql else plain)
    if len(lists) == 1:
        return lists[0]
    merged = sorted((e for entries in lists for e in entries), key=lambda e: (-e[1], e[0]))
    return merged[:depth]


def _is_graphql(parts: IndexParts, doc_id: str) -> bool:
    return parts.documents[doc_id].kind in GRAPHQL_KINDS


def _families(parts: IndexParts, run: SearchRun) -> tuple[bool, bool]:
    """Whether the search can reach GraphQL documents, and other ones: from the kinds it
    asks for, else from the languages of the indexed sources."""
    if run.filter.kinds:
        asked = [kind in GRAPHQL_KINDS for kind in run.filter.kinds]
        return any(asked), not all(asked)
    graphql = "graphql" in parts.languages
    return graphql, not graphql or len(parts.languages) > 1


def _cut(parts: IndexParts, searched: Vectors, entries: Entries) -> Entries:
    if not parts.settings.weak_hit_cut:
        return entries
    return cut_weak_hits(parts.vector, searched, entries, parts.settings.weak_hit_sample)


def _nearest(
    parts: IndexParts, run: SearchRun, query_vector: Vectors, depth: int
) -> tuple[Vectors, Entries]:
    """The nearest documents and the vector searched for: the question's, centred when
    ``hub_reduction`` is set, then moved towards its ``vector_prf_docs`` nearest documents by
    ``vector_prf_weight`` (Rocchio feedback on the dense side) when that is set."""
    settings, vector = parts.settings, parts.vector
    assert vector is not None
    scoped = run.filter.source_ids(parts.by_source, SCOPED_VECTOR_LIMIT)

    def nearest(searched: Vectors) -> Entries:
        if scoped is not None:
            return vector.search_among(searched, scoped, depth)
        return vector.search(searched, depth)

    searched = query_vector
    if settings.hub_reduction > 0:  # centring: hubs lose their head start
        searched = query_vector - settings.hub_reduction * vector.centroid()
    entries = nearest(searched)
    if settings.vector_prf_weight > 0 and entries:
        found = [vector.vector(d) for d, _ in entries[: settings.vector_prf_docs]]
        rows = [v for v in found if v is not None]
        if rows:
            searched = searched + settings.vector_prf_weight * np.mean(rows, axis=0)
            entries = nearest(searched)
    return searched, entries
