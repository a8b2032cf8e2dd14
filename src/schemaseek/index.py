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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document, SearchResponse
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.errors import ConfigError
from schemaseek.filters import SearchFilter
from schemaseek.glossary import Glossary
from schemaseek.graph import SchemaGraph
from schemaseek.pipeline import IndexParts, Mode, build_pins, search
from schemaseek.rerank import Reranker
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex
from schemaseek.sources.base import Edge, SourceSchema

logger = logging.getLogger(__name__)

#: ``progress(stage, done, total)``: stage is "keyword" or "embedding".
BuildProgress = Callable[[str, int, int], None]


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
        """``provider=None`` builds a keyword + glossary index only (always degraded)."""
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
        self._reranker = reranker
        self._parts: IndexParts | None = None

    # -- building ---------------------------------------------------------------------------

    def add_source(self, schema: SourceSchema) -> None:
        """Add a source; takes effect at the next :meth:`build`."""
        self.sources.append(schema)

    def build(self, progress: BuildProgress | None = None) -> BuildReport:
        """(Re)build every index. An embedding failure leaves a degraded keyword index."""
        started = time.perf_counter()
        documents = self._collect_documents()
        ids = list(documents)
        matcher = None
        if self.glossary.entries:
            matcher = GlossaryMatcher(
                self.glossary, ids, {d: doc.name for d, doc in documents.items()}
            )
            for doc_id, contexts in matcher.contexts().items():
                doc = documents[doc_id]
                merged = " ".join(filter(None, [doc.context, *contexts]))
                documents[doc_id] = dataclasses.replace(doc, context=merged)
        settings = self.settings
        keyword = KeywordIndex(settings.keyword_field_weights, settings.prefix_min_results)
        docs = list(documents.values())
        keyword.add(docs)
        if progress:
            progress("keyword", len(docs), len(docs))
        edges = [e for s in self.sources for e in s.edges]
        graph = SchemaGraph(ids, _known_edges(edges, documents))
        parts = IndexParts(
            documents=documents,
            keyword=keyword,
            vector=None,
            embedder=self._embedder,
            matcher=matcher,
            graph=graph,
            pins=build_pins(documents),
            settings=settings,
            reranker=self._reranker,
        )
        embedded = self._embed(parts, docs, progress)
        self._parts = parts
        return BuildReport(
            sources=tuple(s.name for s in self.sources),
            documents=len(docs),
            embedded=embedded,
            edges=len(edges),
            degraded=not parts.vectors_ready,
            glossary_entries=len(self.glossary.entries),
            glossary_missing=tuple(matcher.missing) if matcher else (),
            took_s=time.perf_counter() - started,
        )

    def _collect_documents(self) -> dict[str, Document]:
        documents: dict[str, Document] = {}
        for schema in self.sources:
            for doc in schema.documents:
                if doc.id in documents:
                    other = documents[doc.id].source
                    raise ConfigError(
                        f"document id {doc.id!r} appears in sources {other!r} and "
                        f"{schema.name!r}; give the sources distinct schemas or names"
                    )
                documents[doc.id] = doc
        return documents

    def _embed(
        self, parts: IndexParts, docs: list[Document], progress: BuildProgress | None
    ) -> int:
        if self.provider is None or not docs:
            return 0
        settings = self.settings
        try:
            vectors = self.provider.embed(
                [d.embedding_text() for d in docs],
                (lambda n: progress("embedding", n, len(docs))) if progress else None,
            )
            index = VectorIndex(
                self.provider.dimensions,
                exact_threshold=settings.exact_threshold,
                m=settings.hnsw_m,
                ef_construction=settings.hnsw_ef_construction,
                ef_search=settings.hnsw_ef_search,
            )
            index.add([d.id for d in docs], vectors)
        except Exception as exc:  # degraded mode: keyword + glossary keep serving
            logger.warning(
                "embedding failed (%s); serving keyword + glossary until the next build", exc
            )
            return 0
        parts.vector = index
        parts.vectors_ready = True
        return len(docs)

    # -- querying ---------------------------------------------------------------------------

    @property
    def built(self) -> bool:
        return self._parts is not None

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
        return search(self._require(), query, limit=limit, mode=mode, search_filter=search_filter)

    def _require(self) -> IndexParts:
        if self._parts is None:
            raise ConfigError("the index is not built yet; call build() first")
        return self._parts


def _known_edges(edges: Iterable[Edge], documents: dict[str, Document]) -> list[Edge]:
    return [e for e in edges if e.source in documents and e.target in documents]
