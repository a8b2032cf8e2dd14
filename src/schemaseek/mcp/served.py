"""What the MCP tools answer from: one :class:`~schemaseek.index.SchemaIndex`, or the several
indexes a network service runs (one engine per source).

:class:`ServedIndexes` hides the difference. It is given a function returning the indexes to serve
*now* (a service's engines swap their index on refresh or rollback, so the store never keeps
one), and answers:

* **search** — :func:`schemaseek.federation.federated_search`, as the network service runs it:
  each index whose sources are wanted answers the question; the hits merge by fused score
  (ties by source then id) and the best ``limit`` are kept. With one index its response passes
  through unchanged.
* **lookups** — ids are unique within a source, not across sources:
  :meth:`ServedIndexes.find` returns every index holding an id (optionally of one source),
  :meth:`ServedIndexes.owner` the first.
  Paths (root paths, FK joins) never cross indexes: each index holds its own graph.
* **learning** — a usage report teaches every index that knows one of the ids
  (:func:`schemaseek.federation.learn`).

``view`` (a service's :meth:`Backend.reading <schemaseek.service.backend.Backend.reading>`) is
held around each search, so a glossary update reaches a search in every index or in none.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from schemaseek.documents import DocKind, Document, Hit, SearchResponse
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.federation import federated_search, known_ids, learn, serving
from schemaseek.feedback import UsageEvent
from schemaseek.query.filters import SearchFilter
from schemaseek.recent import RecentQueries

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

__all__ = ["ServedIndexes"]


class ServedIndexes:
    """The indexes behind the MCP tools (see the module docstring)."""

    def __init__(
        self,
        indexes: Callable[[], Sequence[SchemaIndex | None]],
        *,
        view: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
        building: Callable[[], str | None] | None = None,
    ) -> None:
        self._indexes = indexes
        self._view = view
        self._building = building

    def building(self) -> str | None:
        """What is still being built (vectors embedding in the background), or None."""
        return self._building() if self._building is not None else None

    @classmethod
    def of(cls, index: SchemaIndex) -> ServedIndexes:
        """The indexes of one index (built now or later)."""
        return cls(lambda: [index])

    def current(self) -> list[SchemaIndex]:
        """The built indexes being served right now."""
        return [i for i in self._indexes() if i is not None and i.built]

    def source_names(self) -> list[str]:
        return sorted({s.name for i in self.current() for s in i.sources})

    @property
    def degraded(self) -> bool:
        """True when no index has vectors (searches are keyword + glossary only)."""
        return all(i.degraded for i in self.current())

    def embedders(self) -> list[CachedQueryEmbedder]:
        """The distinct cached query embedders of the served indexes (for batch priming)."""
        found: dict[int, CachedQueryEmbedder] = {}
        for index in self.current():
            embedder = index.query_embedder
            if isinstance(embedder, CachedQueryEmbedder) and not index.degraded:
                found.setdefault(id(embedder), embedder)
        return list(found.values())

    # -- lookups ----------------------------------------------------------------------------

    def find(self, doc_id: str, source: str | None = None) -> list[tuple[SchemaIndex, Document]]:
        """Every served index holding ``doc_id`` (of ``source`` when given), with the document."""
        found = []
        for index in self.current():
            doc = index.get(doc_id)
            if doc is not None and (source is None or doc.source == source):
                found.append((index, doc))
        return found

    def owner(self, doc_id: str, source: str | None = None) -> SchemaIndex | None:
        """The first index holding ``doc_id`` (of ``source`` when given)."""
        found = self.find(doc_id, source)
        return found[0][0] if found else None

    def get(self, doc_id: str, source: str | None = None) -> Document | None:
        found = self.find(doc_id, source)
        return found[0][1] if found else None

    def index_of(self, hit: Hit) -> SchemaIndex | None:
        """The index a hit came from."""
        return self.owner(hit.id, hit.document.source)

    # -- search and learning ----------------------------------------------------------------

    def search(
        self,
        question: str,
        *,
        limit: int,
        sources: Sequence[str],
        kinds: Sequence[str],
        recent: RecentQueries | None = None,
    ) -> SearchResponse:
        """Search every index serving a wanted source and merge (module docstring); ``recent``
        remembers the answer's ``query_id``."""
        search_filter = SearchFilter(kinds=tuple(DocKind(k) for k in kinds), sources=tuple(sources))
        with self._view():
            answer = federated_search(
                serving(self.current()), question, limit=limit, search_filter=search_filter,
                recent=recent,
            )  # fmt: skip
        return answer.response()

    def known(self, ids: Sequence[str]) -> tuple[list[str], list[str]]:
        """``ids`` split into those a served index holds and the rest."""
        return known_ids(serving(self.current()), ids)

    def learn(self, question: str | None, ids: Sequence[str]) -> bool:
        """Teach the indexes that ``ids`` answered ``question``; True when one learned."""
        return learn(serving(self.current()), question, ids)

    def replay(self, events: Sequence[UsageEvent]) -> int:
        """Learn from stored usage events (after a start); returns how many were learned."""
        members = serving(self.current())
        return sum(learn(members, e.query, e.selected_ids) for e in events)
