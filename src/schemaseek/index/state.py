"""The one constructor of the pipeline's state (:class:`~schemaseek.query.pipeline.IndexParts`).

Whatever path fills an index — a build, a refresh, phase one of a cold start, a warm start
from a snapshot — ends here, so what derives from the document set (the relationship graph,
the exact-identifier pins, the part → card map, the ids per source, the graph signals) is
computed one way only. A warm start gives the ids' names, targets and sources from the
snapshot's metadata (:class:`DocumentFacts`) so that no lazy document is parsed.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from schemaseek.config import SearchSettings
from schemaseek.documents import Document
from schemaseek.embedding.base import EmbeddingProvider, Vectors
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.errors import ConfigError
from schemaseek.glossary import Glossary
from schemaseek.graph import SchemaGraph
from schemaseek.index.diff import SourceDiff
from schemaseek.query.rerank import Reranker
from schemaseek.query.state import IndexParts
from schemaseek.rerankers.factory import reranker_from_settings
from schemaseek.signals.feedback import FeedbackSignal
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.signals.graph import GraphSignals
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.name_bridge import NameVocabulary, WordVectors
from schemaseek.signals.root_leads import RootLeads
from schemaseek.signals.vector import VectorIndex
from schemaseek.sources.base import SourceSchema
from schemaseek.text import normalize_identifier

logger = logging.getLogger(__name__)

__all__ = [
    "Components",
    "DocumentFacts",
    "VectorParams",
    "assemble",
    "build_pins",
    "components_for",
    "keyword_index",
    "matcher_for",
    "name_vocabulary",
    "prepare_documents",
    "updated_vocabulary",
    "vector_index",
    "vector_params",
]


@dataclass(frozen=True, slots=True)
class Components:
    """What an index lends every state it serves: settings, the query embedder, the
    reranker, the usage-feedback store and the word vectors of the name bridge."""

    settings: SearchSettings
    embedder: EmbeddingProvider | None
    reranker: Reranker | None
    feedback: FeedbackSignal | None
    words: WordVectors | None = None


@dataclass(frozen=True, slots=True)
class DocumentFacts:
    """Per id: the name, the card it belongs to (``target``) and the source, in index order."""

    ids: Sequence[str]
    names: Mapping[str, str]
    targets: Mapping[str, str | None]
    sources: Mapping[str, str]

    @classmethod
    def of(cls, documents: Mapping[str, Document]) -> DocumentFacts:
        ids = list(documents)
        docs = [documents[d] for d in ids]
        return cls(
            ids=ids,
            names={d.id: d.name for d in docs},
            targets={d.id: d.target for d in docs},
            sources={d.id: d.source for d in docs},
        )


def components_for(
    settings: SearchSettings, provider: EmbeddingProvider | None, reranker: Reranker | None
) -> Components:
    """The components an index over ``provider`` lends its states: a cached query embedder,
    a feedback store and word vectors when there is a model, the reranker given (or the
    settings' own)."""
    embedder: EmbeddingProvider | None = None
    feedback: FeedbackSignal | None = None
    words: WordVectors | None = None
    if provider is not None:
        embedder = CachedQueryEmbedder(
            provider, maxsize=settings.query_cache_size, ttl=settings.query_cache_ttl_s
        )
        words = WordVectors(provider, embedder, maxsize=settings.bridge_word_cache)
        feedback = FeedbackSignal(
            provider.dimensions, min_similarity=settings.feedback_min_similarity
        )
    if reranker is None:
        reranker = reranker_from_settings(settings, provider)
    return Components(settings, embedder, reranker, feedback, words)


def name_vocabulary(
    components: Components, documents: Iterable[Document], known: Sequence[NameVocabulary] = ()
) -> NameVocabulary | None:
    """The name bridge's vocabulary of ``documents`` (vectors of words in ``known`` reused);
    ``None`` when the bridge is off, there is no model, no SQL name word, or embedding the
    words fails (logged: the index serves without the bridge)."""
    words = components.words
    if words is None or components.settings.weights.get("bridge", 0.0) <= 0:
        return None
    try:
        return NameVocabulary.build(documents, words, known)
    except Exception as exc:
        logger.warning("name bridge off: embedding the name vocabulary failed (%s)", exc)
        return None


def updated_vocabulary(
    components: Components, parts: IndexParts, diff: SourceDiff, vectors: bool
) -> NameVocabulary | None:
    """The vocabulary of ``parts`` after ``diff``: only the removed and changed documents are
    looked at (and only new words embedded); a state without one gets a whole new one. None
    when the state will serve no ``vectors`` (the bridge serves beside them only)."""
    if not vectors:
        return None
    words, vocabulary = components.words, parts.name_vocabulary
    if vocabulary is None or words is None:
        return name_vocabulary(components, diff.documents.values())
    before = parts.documents
    changed = set(diff.changed)
    old = [before[d] for d in (*diff.removed, *diff.changed) if d in before]
    new = [diff.documents[d] for d in changed]
    try:
        return vocabulary.updated(old, new, words)
    except Exception as exc:
        logger.warning("name bridge off: embedding new name words failed (%s)", exc)
        return None


def build_pins(facts: DocumentFacts) -> dict[str, list[str]]:
    """Normalised identifier → ids: full ids first, then items whose own name matches."""
    pins: dict[str, list[str]] = {}
    cards = sorted(d for d in facts.ids if not facts.targets[d])
    for doc_id in cards:
        pins.setdefault(normalize_identifier(doc_id), []).append(doc_id)
    for doc_id in cards:
        key = normalize_identifier(facts.names[doc_id])
        ids = pins.setdefault(key, [])
        if doc_id not in ids:
            ids.append(doc_id)
    return pins


def prepare_documents(
    sources: Sequence[SourceSchema], glossary: Glossary
) -> tuple[dict[str, Document], GlossaryMatcher | None]:
    """All documents of ``sources`` by id, with glossary context injected into the ones it
    targets; raises :class:`ConfigError` when two sources share a document id."""
    documents: dict[str, Document] = {}
    for schema in sources:
        for doc in schema.documents:
            if doc.id in documents:
                other = documents[doc.id].source
                raise ConfigError(
                    f"document id {doc.id!r} appears in sources {other!r} and "
                    f"{schema.name!r}; give the sources distinct schemas or names"
                )
            documents[doc.id] = doc
    if not glossary.entries:
        return documents, None
    matcher = GlossaryMatcher(glossary, documents, {d: x.name for d, x in documents.items()})
    for doc_id, contexts in matcher.contexts().items():
        doc = documents[doc_id]
        merged = " ".join(filter(None, [doc.context, *contexts]))
        documents[doc_id] = dataclasses.replace(doc, context=merged)
    return documents, matcher


def matcher_for(glossary: Glossary, facts: DocumentFacts) -> GlossaryMatcher | None:
    """A glossary matcher over already indexed documents (their context is not touched)."""
    return GlossaryMatcher(glossary, facts.ids, facts.names) if glossary.entries else None


def keyword_index(settings: SearchSettings, documents: Iterable[Document] = ()) -> KeywordIndex:
    """An empty (or filled) keyword index with the settings' field weights."""
    index = KeywordIndex(settings.keyword_field_weights, settings.prefix_min_results)
    docs = list(documents)
    if docs:
        index.add(docs)
    return index


class VectorParams(TypedDict):
    """The :class:`VectorIndex` parameters a :class:`SearchSettings` sets."""

    exact_threshold: int
    m: int
    ef_construction: int
    ef_search: int


def vector_params(settings: SearchSettings) -> VectorParams:
    """The settings' exact threshold and HNSW parameters."""
    return VectorParams(
        exact_threshold=settings.exact_threshold,
        m=settings.hnsw_m,
        ef_construction=settings.hnsw_ef_construction,
        ef_search=settings.hnsw_ef_search,
    )


def vector_index(settings: SearchSettings, dimensions: int) -> VectorIndex:
    """An empty vector index with the settings' exact threshold and HNSW parameters."""
    return VectorIndex(dimensions, **vector_params(settings))


def assemble(
    components: Components,
    *,
    documents: Mapping[str, Document],
    sources: Sequence[SourceSchema],
    keyword: KeywordIndex,
    vector: VectorIndex | None,
    matcher: GlossaryMatcher | None,
    facts: DocumentFacts | None = None,
    graph: SchemaGraph | None = None,
    vocabulary: NameVocabulary | None = None,
) -> IndexParts:
    """The pipeline's state over ``documents``: graph (the sources' edges between indexed ids),
    pins, cards and ids per source derived here. ``facts`` spares parsing lazy documents;
    ``graph`` reuses a graph known to be unchanged (same ids and edges)."""
    facts = facts or DocumentFacts.of(documents)
    if graph is None:
        edges = [e for s in sources for e in s.edges]
        kept = [e for e in edges if e.source in documents and e.target in documents]
        graph = SchemaGraph(list(facts.ids), kept)
    by_source: dict[str, list[str]] = {}
    for doc_id in facts.ids:
        by_source.setdefault(facts.sources[doc_id], []).append(doc_id)
    return IndexParts(
        documents=documents,
        keyword=keyword,
        vector=vector,
        embedder=components.embedder,
        matcher=matcher,
        graph=graph,
        pins=build_pins(facts),
        settings=components.settings,
        reranker=components.reranker,
        vectors_ready=vector is not None,
        card_of={d: t for d, t in facts.targets.items() if t and t in documents},
        by_source={source: tuple(ids) for source, ids in by_source.items()},
        graph_signals=GraphSignals(graph, documents),
        root_leads=RootLeads(graph, documents),
        feedback=components.feedback,
        name_vocabulary=vocabulary,
        word_vectors=components.words,
        languages=frozenset(s.kind for s in sources),
    )


def install(
    parts: IndexParts,
    scratch: IndexParts,
    diff: SourceDiff,
    *,
    vectors: Vectors | None,
    replacement: VectorIndex | None,
) -> None:
    """Update ``parts`` in place to serve ``diff`` (the caller holds the index lock): the
    keyword and vector signals change by the diff's documents (``vectors``: the new vectors of
    ``diff.changed``, row by row; or ``replacement``, a whole vector index), and what derives
    from the document set is taken from ``scratch`` (assembled before the lock was taken)."""
    parts.keyword.remove(diff.removed)
    parts.keyword.add([diff.documents[d] for d in diff.changed])
    if replacement is not None:
        parts.vector = replacement
    elif parts.vector is not None:
        parts.vector.remove(diff.removed)
        if vectors is not None:
            parts.vector.add(list(diff.changed), vectors)
    parts.vectors_ready = parts.vector is not None
    names = (
        "documents", "matcher", "graph", "pins", "card_of", "by_source", "name_vocabulary",
        "languages",
    )  # fmt: skip
    for name in names:
        setattr(parts, name, getattr(scratch, name))
    parts.graph_signals = scratch.graph_signals
    parts.root_leads = scratch.root_leads
