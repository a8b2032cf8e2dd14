"""The service's page of a federated search: :func:`schemaseek.federation.federated_search`
over the serving units, timed into a trace when one is asked for, with the GraphQL root paths
and FK join paths the protobuf answer carries (:mod:`schemaseek.service.convert`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from schemaseek.config import SearchSettings
from schemaseek.documents import GRAPHQL_KINDS, DocKind, Hit, SearchResponse
from schemaseek.engine.units import ServingUnit
from schemaseek.federation import Ask, MemberQuestion, Page, ask_index, federated_search
from schemaseek.paths.graphql import RootPath, root_path
from schemaseek.paths.joins import JoinPath, join_paths
from schemaseek.query.filters import SearchFilter
from schemaseek.query.shared import Deadline
from schemaseek.recent import RecentQueries
from schemaseek.service.trace import Tracer, traced_search

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

__all__ = ["PageHit", "SearchPage", "search_page"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PageHit:
    """A hit of one page, with the unit (engine) that found it and its GraphQL root path."""

    unit: str
    hit: Hit
    key: str
    path: RootPath | None = None


@dataclass(slots=True)
class SearchPage:
    """One page of a federated search."""

    hits: list[PageHit]
    has_more: bool
    degraded: bool
    mode: str
    examples: list[dict[str, Any]] = field(default_factory=list)
    join_paths: list[JoinPath] = field(default_factory=list)
    took_ms: float = 0.0
    query_id: str = ""


def search_page(
    units: Sequence[ServingUnit],
    query: str,
    *,
    limit: int,
    mode: str,
    search_filter: SearchFilter,
    page: Page,
    settings: SearchSettings,
    recent: RecentQueries | None = None,
    tracer: Tracer | None = None,
    deadline: Deadline | None = None,
    executor: Executor | None = None,
) -> SearchPage:
    """The page of ``query`` that ``page`` starts (see :func:`federated_search`)."""
    started = time.perf_counter()
    answer = federated_search(
        units, query, limit=limit, mode=mode, search_filter=search_filter, page=page,
        settings=settings, ask=_traced(tracer) if tracer is not None else ask_index,
        recent=recent, deadline=deadline, executor=executor,
    )  # fmt: skip
    out = SearchPage(
        hits=[PageHit(h.member, h.hit, h.key) for h in answer.hits],
        has_more=answer.has_more,
        degraded=answer.degraded,
        mode=answer.mode,
        examples=answer.examples,
        query_id=answer.query_id,
    )
    _add_paths(units, out, tracer)
    out.took_ms = (time.perf_counter() - started) * 1000.0
    return out


def _traced(tracer: Tracer) -> Ask:
    def ask(name: str, index: SchemaIndex, question: MemberQuestion) -> SearchResponse:
        return traced_search(
            index, tracer, name, question.query, limit=question.depth, mode=question.mode,
            search_filter=question.search_filter, shared=question.shared,
        )  # fmt: skip

    return ask


def _add_paths(units: Sequence[ServingUnit], page: SearchPage, tracer: Tracer | None) -> None:
    """GraphQL root paths of the page's GraphQL hits; FK join paths among its SQL tables."""
    start = tracer.now_ms() if tracer else 0.0
    by_unit = {u.name: u for u in units}
    order = [p.hit.id for p in page.hits]
    for position, item in enumerate(page.hits):
        unit = by_unit.get(item.unit)
        index = unit.index if unit is not None else None
        if index is None or item.hit.document.kind not in GRAPHQL_KINDS:
            continue
        try:
            path = root_path(index, item.hit.id, prefer=order)
        except Exception as exc:  # a path is a convenience; the hit stands without it
            logger.warning("root path of %s failed: %s", item.hit.id, exc)
            continue
        page.hits[position] = PageHit(item.unit, item.hit, item.key, path)
    for name, unit in by_unit.items():
        tables = [
            p.hit.id
            for p in page.hits
            if p.unit == name and p.hit.document.kind is DocKind.SQL_TABLE
        ]
        index = unit.index
        if len(tables) >= 2 and index is not None:
            try:
                page.join_paths.extend(join_paths(index.graph, tables))
            except Exception as exc:
                logger.warning("join paths in %r failed: %s", name, exc)
    if tracer is not None:
        tracer.add("paths", start, tracer.now_ms() - start, "", {"hits": str(len(page.hits))})
