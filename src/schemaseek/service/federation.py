"""One search over every serving unit: each engine answers, results merge by fused score.

Every engine fuses with the same settings (RRF over the same signals), so fused scores are on
one scale and a merge by ``(score desc, source, id)`` is fair. Pages are cut with
:func:`schemaseek.fusion.top_k` after a keyset ``(score, key)``; each engine is asked for as
many results as the pages served so far plus this one (and one more, to know whether another
page exists). An engine that fails is skipped and the answer says ``degraded``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from schemaseek.documents import DocKind, Hit
from schemaseek.filters import SearchFilter
from schemaseek.fusion import top_k
from schemaseek.paths import JoinPath, RootPath, join_paths, root_path
from schemaseek.pipeline import InvalidQueryError, Mode
from schemaseek.service.trace import Tracer, traced_search
from schemaseek.service.units import ServingUnit

__all__ = ["PageHit", "SearchPage", "federated_search", "hit_key"]

logger = logging.getLogger(__name__)

_GRAPHQL = (DocKind.GRAPHQL_ROOT_FIELD, DocKind.GRAPHQL_TYPE, DocKind.GRAPHQL_FIELD)


class NoEngineError(Exception):
    """No engine can serve the search (all initializing or failed)."""


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


def hit_key(source: str, doc_id: str) -> str:
    """The merge and cursor key of a hit (ids are unique per source only)."""
    return f"{source}\x1f{doc_id}"


def federated_search(
    units: Sequence[ServingUnit],
    query: str,
    *,
    limit: int,
    served: int,
    max_depth: int,
    mode: Mode,
    kinds: Sequence[str],
    sources: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    after: tuple[float, str] | None,
    tracer: Tracer | None = None,
) -> SearchPage:
    """The page after ``after`` (``served`` results were served before it)."""
    started = time.perf_counter()
    depth = min(served + limit + 1, max_depth)
    search_filter = SearchFilter(
        include=tuple(include),
        exclude=tuple(exclude),
        kinds=tuple(DocKind(k) for k in kinds),
        sources=tuple(sources),
    )
    scores: dict[str, float] = {}
    found: dict[str, tuple[str, Hit]] = {}
    examples: dict[str, dict[str, Any]] = {}
    degraded, answered, more = False, 0, False
    effective_mode: str = mode
    for unit in units:
        index = unit.index
        if index is None or (sources and not {s.name for s in index.sources} & set(sources)):
            continue
        try:
            if tracer is not None:
                response = traced_search(
                    index, tracer, unit.name, query, limit=depth, mode=mode,
                    search_filter=search_filter,
                )  # fmt: skip
            else:
                response = index.search(
                    query, limit=depth, mode=mode, kinds=kinds, sources=sources,
                    include=include, exclude=exclude,
                )  # fmt: skip
        except InvalidQueryError:
            raise
        except Exception as exc:  # one broken engine never fails the search
            logger.warning("engine %r failed a search: %s", unit.name, exc)
            degraded = True
            continue
        answered += 1
        degraded |= response.degraded
        effective_mode = response.mode if response.mode != mode else effective_mode
        more |= len(response.hits) >= depth and depth < max_depth
        for hit in response.hits:
            key = hit_key(hit.document.source, hit.id)
            scores[key] = hit.score
            found[key] = (unit.name, hit)
        for example in response.examples:
            examples.setdefault(str(example.get("question", "")), dict(example))
    if not answered:
        raise NoEngineError("no engine can serve searches yet")
    ranked = top_k(scores, limit + 1, after=after)
    page = ranked[:limit]
    hits = [PageHit(found[k][0], found[k][1], k) for k, _ in page]
    stop = served + len(page) >= max_depth
    page_obj = SearchPage(
        hits=hits,
        has_more=(len(ranked) > limit or more) and not stop and bool(page),
        degraded=degraded,
        mode=effective_mode,
        examples=list(examples.values()),
    )
    _add_paths(units, page_obj, tracer)
    page_obj.took_ms = (time.perf_counter() - started) * 1000.0
    return page_obj


def _add_paths(units: Sequence[ServingUnit], page: SearchPage, tracer: Tracer | None) -> None:
    """GraphQL root paths of the page's GraphQL hits; FK join paths among its SQL tables."""
    start = tracer.now_ms() if tracer else 0.0
    by_unit = {u.name: u for u in units}
    order = [p.hit.id for p in page.hits]
    for position, item in enumerate(page.hits):
        unit = by_unit.get(item.unit)
        index = unit.index if unit is not None else None
        if index is None or item.hit.document.kind not in _GRAPHQL:
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


def check_query(query: str, limit: int, max_length: int, max_limit: int) -> None:
    """The spec's input limits (before any engine is asked)."""
    if not query.strip():
        raise InvalidQueryError("query is empty")
    if len(query) > max_length:
        raise InvalidQueryError(
            f"query is {len(query)} characters; MAX_QUERY_LENGTH is {max_length}"
        )
    if not 1 <= limit <= max_limit:
        raise InvalidQueryError(f"limit must be between 1 and MAX_SEARCH_LIMIT ({max_limit})")
