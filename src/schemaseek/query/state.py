"""What a search runs on and what it gathers: the index state and one search in progress.

:class:`IndexParts` is owned and kept current by :class:`schemaseek.index.SchemaIndex`;
:class:`SearchRun` lives for one :func:`schemaseek.query.pipeline.search` and is handed to
its stages (signals, explanation, augmentation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from schemaseek.config import SearchSettings
from schemaseek.documents import Document
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.graph import SchemaGraph
from schemaseek.query.filters import SearchFilter
from schemaseek.query.fusion import NamedSignal
from schemaseek.query.rerank import Reranker
from schemaseek.signals.feedback import FeedbackSignal
from schemaseek.signals.glossary import GlossaryMatch, GlossaryMatcher
from schemaseek.signals.graph import GraphSignals
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.name_bridge import NameVocabulary, WordVectors
from schemaseek.signals.root_leads import RootLeads
from schemaseek.signals.vector import VectorIndex

__all__ = ["IndexParts", "Mode", "SearchRun"]

Mode = Literal["hybrid", "keyword", "vector"]


@dataclass(slots=True)
class IndexParts:
    """What the pipeline reads; owned and kept current by :class:`schemaseek.index.SchemaIndex`."""

    documents: Mapping[str, Document]
    keyword: KeywordIndex
    vector: VectorIndex | None
    embedder: EmbeddingProvider | None
    matcher: GlossaryMatcher | None
    graph: SchemaGraph
    pins: Mapping[str, Sequence[str]]
    settings: SearchSettings
    reranker: Reranker | None = None
    vectors_ready: bool = False
    card_of: Mapping[str, str] = field(default_factory=dict)
    by_source: Mapping[str, Sequence[str]] = field(default_factory=dict)
    graph_signals: GraphSignals | None = None
    root_leads: RootLeads | None = None
    feedback: FeedbackSignal | None = None
    name_vocabulary: NameVocabulary | None = None
    word_vectors: WordVectors | None = None
    languages: frozenset[str] = frozenset()
    """The schema languages of the indexed sources (``"graphql"``, ``"sql"``)."""


@dataclass(slots=True)
class SearchRun:
    """One search in progress: its options, the signals gathered, notes per id."""

    query: str
    mode: Mode
    limit: int
    filter: SearchFilter
    signals: list[NamedSignal] = field(default_factory=list)
    matches: list[GlossaryMatch] = field(default_factory=list)
    degraded: bool = False
    reranked: bool = False
    notes: dict[str, str] = field(default_factory=dict)
    extra_docs: dict[str, Document] = field(default_factory=dict)
    window: int = 0
    bridged: str = ""
    """How the name bridge read the question's words (``"earnings → salary"``), if it ran."""

    def document(self, parts: IndexParts, doc_id: str) -> Document:
        """An indexed document, or one made for this search (a column of a facet hit)."""
        return self.extra_docs.get(doc_id) or parts.documents[doc_id]
