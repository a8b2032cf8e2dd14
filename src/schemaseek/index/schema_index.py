"""``SchemaIndex``: the one implementation behind the Python API, the CLI, the service and MCP.

It owns the documents of one or more sources and the four indexes built from them (keyword,
vector, glossary, graph), and answers through :mod:`schemaseek.query.pipeline`. Engines, snapshots,
the service and MCP use its public methods only: build, serve_lexical, diff + apply_diff,
export_files / restore_files, and the counts a status page shows.

    >>> from schemaseek import SchemaIndex, load_sdl
    >>> index = SchemaIndex([load_sdl("schema.graphql")])      # doctest: +SKIP
    >>> index.build()                                          # doctest: +SKIP
    >>> index.search("royalty payments for Sony").ids()        # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document, SearchResponse
from schemaseek.embedding.base import EmbeddingProvider, Vectors
from schemaseek.embedding.factory import provider_from_settings
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.glossary import Glossary
from schemaseek.graph import SchemaGraph
from schemaseek.index import files as index_files
from schemaseek.index import state
from schemaseek.index.diff import SourceDiff, content_hash, diff_source, keeps_shape
from schemaseek.index.reports import BuildProgress, BuildReport, RefreshReport
from schemaseek.index.vectors import embed_into
from schemaseek.query.filters import SearchFilter
from schemaseek.query.pipeline import pinned_ids, search
from schemaseek.query.rerank import Reranker
from schemaseek.query.shared import SharedQuery
from schemaseek.query.state import IndexParts, Mode
from schemaseek.recent import RecentQueries
from schemaseek.signals.name_bridge import NameVocabulary
from schemaseek.signals.vector import VectorIndex
from schemaseek.sources.base import SourceSchema

logger = logging.getLogger(__name__)

#: Called with the state a search is about to run on; returns the state to run on instead
#: (tracing wraps the signals in timers). Runs under the index lock.
Instrument = Callable[[IndexParts], IndexParts]


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
        """``provider="default"`` is the one ``settings`` name (``embedding_provider``: the
        local ONNX model or an OpenAI-compatible server); ``provider=None`` builds a keyword +
        glossary index only (always degraded); ``reranker=None`` uses ``settings.reranker``."""
        self.settings = settings or SearchSettings()
        self.glossary = glossary or Glossary()
        self.sources: list[SourceSchema] = list(sources)
        if provider == "default":
            provider = provider_from_settings(self.settings)
        self.provider = provider
        self._components = state.components_for(self.settings, provider, reranker)
        self._parts: IndexParts | None = None
        self._lock = threading.RLock()
        self.recent = RecentQueries()
        """The questions of recent searches by ``query_id`` (for :meth:`record_usage`)."""

    # -- building ---------------------------------------------------------------------------

    def add_source(self, schema: SourceSchema) -> None:
        """Add a source; takes effect at the next :meth:`build`."""
        self.sources.append(schema)

    def build(
        self, progress: BuildProgress | None = None, *, reuse: Sequence[SchemaIndex] = ()
    ) -> BuildReport:
        """(Re)build every index. Vectors of documents whose content is unchanged since the
        previous build (or in one of the ``reuse`` indexes) are reused; an embedding failure
        leaves a degraded keyword index."""
        started = time.perf_counter()
        with self._lock:
            parts = self._lexical(self.sources)
            docs = list(parts.documents.values())
            if progress:
                progress("keyword", len(docs), len(docs))
            embedded = embed_into(
                parts, self._components, self.provider, docs, [self, *reuse], progress
            )
            self._parts = parts
        return BuildReport(
            sources=tuple(s.name for s in self.sources),
            documents=len(docs),
            embedded=embedded,
            edges=parts.graph.edge_count,
            degraded=not parts.vectors_ready,
            glossary_entries=len(self.glossary.entries),
            glossary_missing=tuple(parts.matcher.missing) if parts.matcher else (),
            took_s=time.perf_counter() - started,
        )

    def serve_lexical(self, schema: SourceSchema) -> None:
        """Phase one of a cold start: serve keyword + glossary over ``schema`` alone, at once
        (no vectors yet; :meth:`diff` + :meth:`apply_diff` add them)."""
        parts = self._lexical([schema])
        with self._lock:
            self._parts = parts
            self.sources = [schema]

    def diff(self, schema: SourceSchema) -> SourceDiff:
        """What replacing the source named like ``schema`` (or adding it) changes; the
        serving state is not touched."""
        with self._lock:
            parts = self._require()
            before = list(self.sources)
        sources = [s for s in before if s.name != schema.name] + [schema]
        prepared = state.prepare_documents(sources, self.glossary)
        return diff_source(parts.documents, before, schema, prepared)

    def apply_diff(
        self,
        diff: SourceDiff,
        *,
        vectors: Vectors | None = None,
        replacement: VectorIndex | None = None,
    ) -> None:
        """Install ``diff``: ``vectors`` hold the new vectors of ``diff.changed`` (row by
        row), or ``replacement`` is a whole new vector index. What derives from the document
        set is computed before the lock is taken; searches never see half an update."""
        with self._lock:
            parts = self._require()
            before = list(self.sources)
        documents = diff.documents
        same = keeps_shape(parts.documents, before, diff)
        vectors_after = replacement is not None or parts.vectors_ready
        vocabulary = state.updated_vocabulary(self._components, parts, diff, vectors_after)
        scratch = state.assemble(
            self._components, documents=documents, sources=diff.sources, keyword=parts.keyword,
            vector=parts.vector, matcher=diff.matcher, graph=parts.graph if same else None,
            vocabulary=vocabulary,
        )  # fmt: skip
        with self._lock:
            state.install(parts, scratch, diff, vectors=vectors, replacement=replacement)
            self.sources = list(diff.sources)

    def refresh(self, schema: SourceSchema) -> RefreshReport:
        """Replace one source (matched by name; a new name adds it) incrementally.

        Only added and changed documents (by content hash) are embedded. Embedding happens
        before anything is modified, so a failure raises :class:`EmbeddingError` and leaves the
        serving index untouched. A degraded index retries embedding everything.
        """
        started = time.perf_counter()
        with self._lock:
            diff = self.diff(schema)
            parts = self._require()
            vectors = None
            if diff.changed and parts.vectors_ready and self.provider is not None:
                try:
                    vectors = self.provider.embed(
                        [diff.documents[d].embedding_text() for d in diff.changed]
                    )
                except Exception as exc:
                    raise EmbeddingError(
                        f"refresh of {schema.name!r} failed while embedding; the index is "
                        f"unchanged: {exc}"
                    ) from exc
            self.apply_diff(diff, vectors=vectors)
            embedded = len(diff.changed) if vectors is not None else 0
            if not parts.vectors_ready:
                docs = list(diff.documents.values())
                embedded = embed_into(parts, self._components, self.provider, docs)
        took_s = time.perf_counter() - started
        return RefreshReport.of(diff, embedded, degraded=not parts.vectors_ready, took_s=took_s)

    def new_vector_index(self) -> VectorIndex:
        """An empty vector index with this index's dimensions and HNSW settings."""
        if self.provider is None:
            raise ConfigError("an index without an embedding provider holds no vectors")
        return state.vector_index(self.settings, self.provider.dimensions)

    def stored_vector(self, doc_id: str, digest: str) -> npt.NDArray[np.float32] | None:
        """The vector of ``doc_id`` when it is held for content with hash ``digest``."""
        parts = self._parts
        if parts is None or parts.vector is None or doc_id not in parts.documents:
            return None
        if content_hash(parts.documents, doc_id) != digest:
            return None
        return parts.vector.vector(doc_id)

    def stored_vocabulary(self) -> NameVocabulary | None:
        """The name bridge's vocabulary served now (a build reuses its word vectors)."""
        return self._parts.name_vocabulary if self._parts is not None else None

    def _lexical(self, sources: Sequence[SourceSchema]) -> IndexParts:
        """A state over ``sources`` with keyword and glossary signals, no vectors yet."""
        documents, matcher = state.prepare_documents(sources, self.glossary)
        keyword = state.keyword_index(self.settings, documents.values())
        return state.assemble(
            self._components, documents=documents, sources=sources, keyword=keyword,
            vector=None, matcher=matcher,
        )  # fmt: skip

    # -- persistence ------------------------------------------------------------------------

    def export_files(self) -> dict[str, bytes]:
        """The snapshot files of a built one-source index (vectors only when ready; the ANN
        graph is built first when the index is large enough, so it is saved, never rebuilt).

        Raises:
            SnapshotError: not built, not exactly one source, or data JSON cannot hold.
        """
        with self._lock:
            parts = self._parts
            sources = list(self.sources)
        vector = parts.vector if parts is not None else None
        if vector is not None and len(vector) >= vector.exact_threshold and not vector.graph_built:
            vector.build()
        return index_files.encode(parts, sources)

    def restore_files(
        self,
        files: Mapping[str, memoryview],
        *,
        local_paths: Mapping[str, Path] | None = None,
        documents: int | None = None,
        vectors: bool = True,
    ) -> None:
        """Serve a saved one-source index (documents read lazily, no embedding). ``documents``
        is the count the files must hold; ``vectors=False`` ignores saved vectors.

        Raises:
            SnapshotError: a file does not make sense; the serving state is untouched.
        """
        decoded = index_files.decode(
            files, local_paths or {}, self._components, self.glossary,
            dimensions=self.provider.dimensions if self.provider is not None and vectors else None,
        )  # fmt: skip
        if documents is not None and len(decoded.parts.documents) != documents:
            raise index_files.SnapshotError("the document count differs from the manifest")
        with self._lock:
            self._parts = decoded.parts
            self.sources = [decoded.schema]

    def adopt_keyword_files(self, files: Mapping[str, bytes]) -> None:
        """Serve the keyword index just saved in ``files`` (so this process answers exactly
        as a restart from them would)."""
        keyword = index_files.decode_keyword(
            {n: memoryview(data) for n, data in files.items()}, self.settings
        )
        with self._lock:
            self._require().keyword = keyword

    def reload_glossary(self, glossary: Glossary) -> None:
        """Use ``glossary`` from now on: its matcher serves at once over the indexed
        documents; context it adds to documents enters at the next build or refresh."""
        self.glossary = glossary
        with self._lock:
            parts = self._parts
        if parts is None:
            return
        matcher = state.matcher_for(glossary, state.DocumentFacts.of(parts.documents))
        with self._lock:
            parts.matcher = matcher

    # -- querying ---------------------------------------------------------------------------

    @property
    def built(self) -> bool:
        return self._parts is not None

    @property
    def reranker(self) -> Reranker | None:
        return self._components.reranker

    @property
    def query_embedder(self) -> EmbeddingProvider | None:
        """The cached query embedder (``None`` without a model); batch callers may prime it."""
        return self._components.embedder

    @property
    def degraded(self) -> bool:
        """True while vectors are unavailable (embedding failed or no provider)."""
        return self._parts is None or not self._parts.vectors_ready

    @property
    def document_count(self) -> int:
        """How many documents are served (0 before the first build); parses none."""
        return len(self._parts.documents) if self._parts is not None else 0

    @property
    def vector_count(self) -> int:
        """How many vectors are held."""
        parts = self._parts
        return len(parts.vector) if parts is not None and parts.vector is not None else 0

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
        search_filter: SearchFilter | None = None,
        instrument: Instrument | None = None,
        shared: SharedQuery | None = None,
    ) -> SearchResponse:
        """Answer a question; see :func:`schemaseek.query.pipeline.search`. ``search_filter``
        replaces the separate filter options; ``instrument`` sees the state first; ``shared``
        is what the indexes of one federated search share."""
        if search_filter is None:
            search_filter = SearchFilter(
                include=tuple(include),
                exclude=tuple(exclude),
                kinds=tuple(DocKind(k) for k in kinds),
                sources=tuple(sources),
                predicate=predicate,
            )
        with self._lock:
            parts = self._require()
            if instrument is not None:
                parts = instrument(parts)
            response = search(
                parts, query, limit=limit, mode=mode, search_filter=search_filter, shared=shared
            )
        self.recent.remember(response.query_id, response.query)
        return response

    def pinned(self, query: str, search_filter: SearchFilter | None = None) -> list[str]:
        """The ids a search for ``query`` pins (exact identifiers), closest first."""
        with self._lock:
            parts = self._require()
        return pinned_ids(parts, query, search_filter or SearchFilter())

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
        text = query if query is not None else self.recent.question(query_id or "")
        feedback, embedder = self._components.feedback, self._components.embedder
        if text is None or feedback is None or embedder is None:
            return False
        known = [d for d in selected_ids if d in self._require().documents]
        if not known:
            return False
        try:
            vector = embedder.embed_query(text)
        except Exception as exc:  # feedback is best effort; search is unaffected
            logger.warning("could not embed a feedback question: %s", exc)
            return False
        feedback.add(vector, known)
        return True

    def _require(self) -> IndexParts:
        if self._parts is None:
            raise ConfigError("the index is not built yet; call build() first")
        return self._parts
