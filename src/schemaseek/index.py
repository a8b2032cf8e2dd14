"""``SchemaIndex``: the one implementation behind the Python API, the CLI, the service and MCP.

It owns the documents of one or more sources and the four indexes built from them (keyword,
vector, glossary, graph), and answers questions through :mod:`schemaseek.pipeline`.

    >>> from schemaseek import SchemaIndex, load_sdl
    >>> index = SchemaIndex([load_sdl("schema.graphql")])      # doctest: +SKIP
    >>> index.build()                                          # doctest: +SKIP
    >>> index.search("royalty payments for Sony").ids()        # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document, SearchResponse
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.filters import SearchFilter
from schemaseek.glossary import Glossary
from schemaseek.graph import SchemaGraph
from schemaseek.pipeline import IndexParts, Mode, build_pins, search
from schemaseek.rerank import Reranker
from schemaseek.rerankers.factory import reranker_from_settings
from schemaseek.signals.feedback import FeedbackSignal
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.signals.graph import GraphSignals
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex
from schemaseek.sources.base import Edge, SourceSchema

logger = logging.getLogger(__name__)

RECENT_QUERIES = 10_000
"""How many recent searches keep their question text for :meth:`SchemaIndex.record_usage`."""

#: ``progress(stage, done, total)``: stage is "keyword" or "embedding".
BuildProgress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """What :meth:`SchemaIndex.refresh` did."""

    source: str
    added: int
    changed: int
    removed: int
    embedded: int
    degraded: bool
    took_s: float


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What :meth:`SchemaIndex.build` did."""

    sources: tuple[str, ...]
    documents: int
    embedded: int
    edges: int
    degraded: bool
    glossary_entries: int
    glossary_missing: tuple[str, ...]
    took_s: float


def default_provider(settings: SearchSettings) -> EmbeddingProvider:
    """The local all-MiniLM-L6-v2 ONNX model, with the settings' device, batch and prefix."""
    from schemaseek.embedding.onnx import OnnxEmbeddingProvider

    return OnnxEmbeddingProvider(
        device=settings.device,
        batch_size=settings.embedding_batch_size,
        query_prefix=settings.query_prefix,
    )


class SchemaIndex:
    """Documents of one or more sources, searchable by business questions."""

    def __init__(
        self,
        sources: Sequence[SourceSchema] = (),
        *,
        glossary: Glossary | None = None,
        provider: EmbeddingProvider | Literal["default"] | None = "default",
        settings: SearchSettings | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        """``provider=None`` builds a keyword + glossary index only (always degraded);
        ``reranker=None`` uses the one ``settings.reranker`` names (default: none)."""
        self.settings = settings or SearchSettings()
        self.glossary = glossary or Glossary()
        self.sources: list[SourceSchema] = list(sources)
        if provider == "default":
            provider = default_provider(self.settings)
        self.provider = provider
        self._embedder: EmbeddingProvider | None = None
        if provider is not None:
            self._embedder = CachedQueryEmbedder(
                provider,
                maxsize=self.settings.query_cache_size,
                ttl=self.settings.query_cache_ttl_s,
            )
        self._reranker = (
            reranker if reranker is not None else reranker_from_settings(self.settings, provider)
        )
        self._parts: IndexParts | None = None
        self._lock = threading.RLock()
        self._feedback: FeedbackSignal | None = None
        if provider is not None:
            self._feedback = FeedbackSignal(
                provider.dimensions, min_similarity=self.settings.feedback_min_similarity
            )
        self._recent: OrderedDict[str, str] = OrderedDict()

    # -- building ---------------------------------------------------------------------------

    def add_source(self, schema: SourceSchema) -> None:
        """Add a source; takes effect at the next :meth:`build`."""
        self.sources.append(schema)

    def build(self, progress: BuildProgress | None = None) -> BuildReport:
        """(Re)build every index. Vectors of documents whose content is unchanged since the
        previous build are reused; an embedding failure leaves a degraded keyword index."""
        started = time.perf_counter()
        with self._lock:
            documents, matcher = self._prepare(self.sources)
            settings = self.settings
            keyword = KeywordIndex(settings.keyword_field_weights, settings.prefix_min_results)
            docs = list(documents.values())
            keyword.add(docs)
            if progress:
                progress("keyword", len(docs), len(docs))
            parts = IndexParts(
                documents=documents,
                keyword=keyword,
                vector=None,
                embedder=self._embedder,
                matcher=matcher,
                graph=SchemaGraph([], []),
                pins={},
                settings=settings,
                reranker=self._reranker,
                feedback=self._feedback,
            )
            _link(parts, self.sources)
            embedded = self._embed_all(parts, docs, self._parts, progress)
            self._parts = parts
        return BuildReport(
            sources=tuple(s.name for s in self.sources),
            documents=len(docs),
            embedded=embedded,
            edges=parts.graph.edge_count,
            degraded=not parts.vectors_ready,
            glossary_entries=len(self.glossary.entries),
            glossary_missing=tuple(matcher.missing) if matcher else (),
            took_s=time.perf_counter() - started,
        )

    def refresh(self, schema: SourceSchema) -> RefreshReport:
        """Replace one source (matched by name; a new name adds it) incrementally.

        Only added and changed documents (by content hash) are embedded. Embedding happens
        before anything is modified, so a failure raises :class:`EmbeddingError` and leaves the
        serving index untouched. A degraded index retries embedding everything.
        """
        started = time.perf_counter()
        with self._lock:
            parts = self._require()
            sources = [s for s in self.sources if s.name != schema.name] + [schema]
            documents, matcher = self._prepare(sources)
            old = parts.documents
            removed = [d for d in old if d not in documents]
            changed = [
                d for d, doc in documents.items()
                if d not in old or old[d].content_hash() != doc.content_hash()
            ]  # fmt: skip
            vectors = None
            if changed and parts.vectors_ready and self.provider is not None:
                try:
                    vectors = self.provider.embed([documents[d].embedding_text() for d in changed])
                except Exception as exc:
                    raise EmbeddingError(
                        f"refresh of {schema.name!r} failed while embedding; the index is "
                        f"unchanged: {exc}"
                    ) from exc
            parts.keyword.remove(removed)
            parts.keyword.add([documents[d] for d in changed])
            if parts.vector is not None:
                parts.vector.remove(removed)
                if vectors is not None:
                    parts.vector.add(changed, vectors)
            parts.documents = documents
            parts.matcher = matcher
            self.sources = sources
            _link(parts, sources)
            embedded = len(changed) if vectors is not None else 0
            if not parts.vectors_ready:
                embedded = self._embed_all(parts, list(documents.values()), None, None)
        return RefreshReport(
            source=schema.name,
            added=sum(1 for d in changed if d not in old),
            changed=sum(1 for d in changed if d in old),
            removed=len(removed),
            embedded=embedded,
            degraded=not parts.vectors_ready,
            took_s=time.perf_counter() - started,
        )

    def _prepare(
        self, sources: Sequence[SourceSchema]
    ) -> tuple[dict[str, Document], GlossaryMatcher | None]:
        """All documents by id, with glossary context injected into the ones it targets."""
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
        if not self.glossary.entries:
            return documents, None
        matcher = GlossaryMatcher(
            self.glossary, documents, {d: x.name for d, x in documents.items()}
        )
        for doc_id, contexts in matcher.contexts().items():
            doc = documents[doc_id]
            merged = " ".join(filter(None, [doc.context, *contexts]))
            documents[doc_id] = dataclasses.replace(doc, context=merged)
        return documents, matcher

    def _embed_all(
        self,
        parts: IndexParts,
        docs: list[Document],
        previous: IndexParts | None,
        progress: BuildProgress | None,
    ) -> int:
        """Fill ``parts.vector``; reuse ``previous`` vectors of unchanged documents. Returns how
        many documents were embedded; on failure logs, leaves ``parts`` degraded, returns 0."""
        if self.provider is None or not docs:
            return 0
        settings = self.settings
        reusable: dict[str, npt.NDArray[np.float32]] = {}
        if previous is not None and previous.vector is not None and previous.vectors_ready:
            for doc in docs:
                before = previous.documents.get(doc.id)
                if before is not None and before.content_hash() == doc.content_hash():
                    vector = previous.vector.vector(doc.id)
                    if vector is not None:
                        reusable[doc.id] = vector
        todo = [d for d in docs if d.id not in reusable]
        try:
            fresh = (
                self.provider.embed(
                    [d.embedding_text() for d in todo],
                    (lambda n: progress("embedding", n, len(todo))) if progress else None,
                )
                if todo
                else None
            )
            index = VectorIndex(
                self.provider.dimensions,
                exact_threshold=settings.exact_threshold,
                m=settings.hnsw_m,
                ef_construction=settings.hnsw_ef_construction,
                ef_search=settings.hnsw_ef_search,
            )
            if reusable:
                index.add(list(reusable), np.stack(list(reusable.values())))
            if fresh is not None:
                index.add([d.id for d in todo], fresh)
        except Exception as exc:  # degraded mode: keyword + glossary keep serving
            logger.warning(
                "embedding failed (%s); serving keyword + glossary until the next build", exc
            )
            return 0
        parts.vector = index
        parts.vectors_ready = True
        return len(todo)

    # -- querying ---------------------------------------------------------------------------

    @property
    def built(self) -> bool:
        return self._parts is not None

    @property
    def query_embedder(self) -> EmbeddingProvider | None:
        """The cached query embedder (``None`` without a model); batch callers may prime it."""
        return self._embedder

    @property
    def degraded(self) -> bool:
        """True while vectors are unavailable (embedding failed or no provider)."""
        return self._parts is None or not self._parts.vectors_ready

    @property
    def documents(self) -> dict[str, Document]:
        return dict(self._require().documents)

    @property
    def graph(self) -> SchemaGraph:
        return self._require().graph

    def get(self, doc_id: str) -> Document | None:
        return self._require().documents.get(doc_id)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        mode: Mode = "hybrid",
        kinds: Iterable[DocKind | str] = (),
        sources: Iterable[str] = (),
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        predicate: Callable[[Document], bool] | None = None,
    ) -> SearchResponse:
        """Answer a question; see :func:`schemaseek.pipeline.search`."""
        search_filter = SearchFilter(
            include=tuple(include),
            exclude=tuple(exclude),
            kinds=tuple(DocKind(k) for k in kinds),
            sources=tuple(sources),
            predicate=predicate,
        )
        with self._lock:
            response = search(
                self._require(), query, limit=limit, mode=mode, search_filter=search_filter
            )
            self._recent[response.query_id] = response.query
            while len(self._recent) > RECENT_QUERIES:
                self._recent.popitem(last=False)
        return response

    def record_usage(
        self,
        selected_ids: Sequence[str],
        *,
        query_id: str | None = None,
        query: str | None = None,
    ) -> bool:
        """Learn from usage: the ids a caller went on to use for a question (given as text,
        or as the ``query_id`` of a recent search). Returns False when the question is
        unknown or there is no embedding model to compare questions with."""
        text = query if query is not None else self._recent.get(query_id or "")
        if text is None or self._feedback is None or self._embedder is None:
            return False
        known = [d for d in selected_ids if d in self._require().documents]
        if not known:
            return False
        try:
            vector = self._embedder.embed_query(text)
        except Exception as exc:  # feedback is best effort; search is unaffected
            logger.warning("could not embed a feedback question: %s", exc)
            return False
        self._feedback.add(vector, known)
        return True

    def _require(self) -> IndexParts:
        if self._parts is None:
            raise ConfigError("the index is not built yet; call build() first")
        return self._parts


def _link(parts: IndexParts, sources: Sequence[SourceSchema]) -> None:
    """Rebuild what derives from the document set: graph, identifier pins, part → card map,
    ids per source."""
    documents = parts.documents
    edges: list[Edge] = [
        e for s in sources for e in s.edges if e.source in documents and e.target in documents
    ]
    parts.graph = SchemaGraph(list(documents), edges)
    parts.pins = build_pins(documents)
    parts.card_of = {d: doc.target for d, doc in documents.items() if doc.target in documents}
    by_source: dict[str, list[str]] = {}
    for doc_id, doc in documents.items():
        by_source.setdefault(doc.source, []).append(doc_id)
    parts.by_source = {source: tuple(ids) for source, ids in by_source.items()}
    parts.graph_signals = GraphSignals(parts.graph, documents)
