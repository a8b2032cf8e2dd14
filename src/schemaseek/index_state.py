"""Export and import of a one-source :class:`~schemaseek.index.SchemaIndex` as snapshot files,
and the incremental update the engine applies (a friend module: it works on the index's
internals so that ``index.py`` stays small).

Files of a generation besides the signals' own (:mod:`schemaseek.snapshots.signal_state`):

* ``documents.bin`` + ``documents.offsets.npy`` — every indexed document (glossary context
  included) as a JSON record, read lazily: a warm start parses only the documents a search
  touches;
* ``doc_meta.json`` — ids, names, targets and content hashes, the columns a warm start needs
  at once;
* ``pins.json`` — the exact-identifier table; ``source.json`` — the source's name, kind,
  schema hash, edges and raw metadata.

No pickle anywhere: JSON, ``.npy`` and the libraries' own index formats only.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from schemaseek.documents import Document
from schemaseek.embedding.base import Vectors
from schemaseek.glossary import Glossary
from schemaseek.graph import SchemaGraph
from schemaseek.index import SchemaIndex, _link
from schemaseek.pipeline import IndexParts
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.signals.graph import GraphSignals
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex
from schemaseek.snapshots.arrays import RecordReader, encode_records
from schemaseek.snapshots.documents import LazyDocuments, SourceDocuments, document_record
from schemaseek.snapshots.manager import VerifiedGeneration
from schemaseek.snapshots.manifest import SnapshotError
from schemaseek.snapshots.signal_state import (
    keyword_files,
    restore_keyword,
    restore_vectors,
    vector_files,
)
from schemaseek.sources.base import Edge, SourceSchema

__all__ = [
    "LazyDocuments",
    "build_lexical",
    "content_hash",
    "export_state",
    "install",
    "prepare",
    "restore_state",
    "same_shape",
    "vector_params",
]

logger = logging.getLogger(__name__)

DOCUMENTS = "documents.bin"
DOCUMENT_OFFSETS = "documents.offsets.npy"
DOC_META = "doc_meta.json"
PINS = "pins.json"
SOURCE = "source.json"


def content_hash(documents: Mapping[str, Document], doc_id: str) -> str:
    """The content hash of ``documents[doc_id]``, stored or computed."""
    if isinstance(documents, LazyDocuments):
        return documents.content_hash(doc_id)
    return documents[doc_id].content_hash()


def vector_params(index: SchemaIndex) -> dict[str, Any]:
    """The :class:`VectorIndex` arguments of ``index``'s settings."""
    settings = index.settings
    return {
        "exact_threshold": settings.exact_threshold,
        "m": settings.hnsw_m,
        "ef_construction": settings.hnsw_ef_construction,
        "ef_search": settings.hnsw_ef_search,
    }


def prepare(
    index: SchemaIndex, schema: SourceSchema
) -> tuple[dict[str, Document], GlossaryMatcher | None]:
    """The documents ``schema`` would be indexed as (glossary context added)."""
    return index._prepare([schema])


# -- export -------------------------------------------------------------------------------


def export_state(index: SchemaIndex, hashes: Mapping[str, str]) -> dict[str, bytes]:
    """The snapshot files of a built one-source index (vectors only when they are ready).

    Raises:
        SnapshotError: not built, not exactly one source, or data that JSON cannot hold.
    """
    with index._lock:
        parts = index._parts
        sources = list(index.sources)
    if parts is None or len(sources) != 1:
        raise SnapshotError("only a built index of exactly one source can be saved")
    schema = sources[0]
    documents = parts.documents
    source_context = {d.id: d.context for d in schema.documents}
    ids = list(documents)
    try:
        records = []
        for doc_id in ids:
            record = document_record(documents[doc_id])
            raw = source_context.get(doc_id, record["context"])
            if raw != record["context"]:
                record["raw_context"] = raw
            records.append(record)
        data, offsets = encode_records(records)
        raw_meta: Any = schema.raw
        json.dumps(raw_meta)
    except (TypeError, ValueError) as exc:
        raise SnapshotError(f"source {schema.name!r} holds data JSON cannot store: {exc}") from None
    meta = {
        "ids": ids,
        "names": [documents[d].name for d in ids],
        "targets": [documents[d].target for d in ids],
        "hashes": [hashes.get(d) or content_hash(documents, d) for d in ids],
    }
    source = {
        "name": schema.name,
        "kind": schema.kind,
        "schema_hash": schema.schema_hash,
        "edges": [[e.source, e.target, e.relation, e.data] for e in schema.edges],
        "raw": raw_meta,
    }
    files = {
        DOCUMENTS: data,
        DOCUMENT_OFFSETS: offsets,
        DOC_META: json.dumps(meta, ensure_ascii=False).encode(),
        PINS: json.dumps(dict(parts.pins), ensure_ascii=False).encode(),
        SOURCE: json.dumps(source, ensure_ascii=False).encode(),
    }
    files.update(keyword_files(parts.keyword))
    if parts.vector is not None and parts.vectors_ready:
        files.update(vector_files(parts.vector))
    return files


# -- import -------------------------------------------------------------------------------


def restore_state(index: SchemaIndex, generation: VerifiedGeneration) -> LazyDocuments:
    """Make ``index`` serve the generation (one source): documents lazily, keyword and
    vectors from their files, no embedding. Raises :class:`SnapshotError` when a file does
    not make sense (the caller then tries an older generation)."""
    try:
        meta = json.loads(bytes(generation.read(DOC_META)))
        source = json.loads(bytes(generation.read(SOURCE)))
        pins = {str(k): list(v) for k, v in json.loads(bytes(generation.read(PINS))).items()}
        reader = RecordReader(generation.read(DOCUMENTS), generation.read(DOCUMENT_OFFSETS))
        ids: list[str] = meta["ids"]
        documents = LazyDocuments(ids, meta["hashes"], reader)
        edges = [Edge(s, t, r, dict(d)) for s, t, r, d in source["edges"]]
        schema = SourceSchema(
            name=source["name"],
            kind=source["kind"],
            documents=SourceDocuments(documents),
            edges=edges,
            schema_hash=source["schema_hash"],
            raw=dict(source["raw"] or {}),
        )
        names = dict(zip(ids, meta["names"], strict=True))
        targets = dict(zip(ids, meta["targets"], strict=True))
    except (KeyError, ValueError, TypeError) as exc:
        raise SnapshotError(f"document files are malformed: {exc!r}") from None
    if len(ids) != generation.manifest.documents:
        raise SnapshotError("the document count differs from the manifest")
    settings = index.settings
    keyword = restore_keyword(
        generation.files, settings.keyword_field_weights, settings.prefix_min_results
    )
    vector = None
    if index.provider is not None and generation.manifest.vectors:
        vector = restore_vectors(generation, **vector_params(index))
        if vector.dimensions != index.provider.dimensions or set(vector) != set(ids):
            raise SnapshotError("the vectors do not cover exactly the documents")
    graph = SchemaGraph(ids, edges)
    matcher = _matcher(index.glossary, ids, names)
    parts = IndexParts(
        documents=documents,
        keyword=keyword,
        vector=vector,
        embedder=index._embedder,
        matcher=matcher,
        graph=graph,
        pins=pins,
        settings=settings,
        reranker=index._reranker,
        vectors_ready=vector is not None,
        card_of={d: t for d, t in targets.items() if t and t in documents},
        graph_signals=GraphSignals(graph, documents),
        feedback=index._feedback,
    )
    with index._lock:
        index._parts = parts
        index.sources = [schema]
    return documents


def _matcher(glossary: Glossary, ids: list[str], names: dict[str, str]) -> GlossaryMatcher | None:
    return GlossaryMatcher(glossary, ids, names) if glossary.entries else None


# -- incremental update -------------------------------------------------------------------


def same_shape(index: SchemaIndex, schema: SourceSchema, changed: Sequence[str]) -> bool:
    """Whether updating ``changed`` documents leaves what derives from ids, names, targets and
    edges (graph, identifier pins, cards) as it is: no document added or removed, the same
    edges, and every changed document keeps its name and target."""
    parts = index._require()
    documents = {d.id: d for d in schema.documents}
    if len(documents) != len(parts.documents) or any(d not in parts.documents for d in documents):
        return False
    if len(index.sources) != 1:
        return False

    def shape(edges: Sequence[Edge]) -> list[tuple[str, str, str, Any]]:
        return [(e.source, e.target, e.relation, e.data) for e in edges]

    if shape(index.sources[0].edges) != shape(schema.edges):
        return False
    for doc_id in changed:
        old, new = parts.documents[doc_id], documents.get(doc_id)
        if new is None or (old.name, old.target) != (new.name, new.target):
            return False
    return True


def install(
    index: SchemaIndex,
    schema: SourceSchema,
    documents: dict[str, Document],
    matcher: GlossaryMatcher | None,
    changed: Sequence[str],
    removed: Sequence[str],
    vectors: Vectors | None,
    replacement: VectorIndex | None = None,
    *,
    relink: bool = True,
) -> None:
    """Apply one diff to ``index``: ``changed`` documents (added or updated) and ``removed``
    ids, with ``vectors`` for ``changed`` (or a whole ``replacement`` vector index). What
    derives from the document set is computed before the index lock is taken (and kept as it
    is with ``relink=False``, see :func:`same_shape`); searches never see half an update."""
    parts = index._require()
    scratch = dataclasses.replace(parts, documents=documents, matcher=matcher)
    if relink:
        _link(scratch, [schema])
    else:
        scratch.graph_signals = GraphSignals(parts.graph, documents)
    with index._lock:
        parts.keyword.remove(removed)
        parts.keyword.add([documents[d] for d in changed])
        if replacement is not None:
            parts.vector = replacement
            parts.vectors_ready = True
        elif parts.vector is not None:
            parts.vector.remove(removed)
            if vectors is not None:
                parts.vector.add(list(changed), vectors)
        parts.documents = documents
        parts.matcher = matcher
        parts.graph = scratch.graph
        parts.pins = scratch.pins
        parts.card_of = scratch.card_of
        parts.graph_signals = scratch.graph_signals
        index.sources = [schema]


def build_lexical(index: SchemaIndex, schema: SourceSchema) -> dict[str, Document]:
    """Phase one of a cold start: serve keyword + glossary from ``schema`` at once (no
    vectors); returns the indexed documents."""
    documents, matcher = prepare(index, schema)
    settings = index.settings
    keyword = KeywordIndex(settings.keyword_field_weights, settings.prefix_min_results)
    keyword.add(list(documents.values()))
    parts = IndexParts(
        documents=documents,
        keyword=keyword,
        vector=None,
        embedder=index._embedder,
        matcher=matcher,
        graph=SchemaGraph([], []),
        pins={},
        settings=settings,
        reranker=index._reranker,
        feedback=index._feedback,
    )
    _link(parts, [schema])
    with index._lock:
        index._parts = parts
        index.sources = [schema]
    return documents
