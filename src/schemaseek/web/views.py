"""What the search page shows, computed from one federated search over the served engines.

Each result carries its source, kind and GraphQL root path, one bar per signal that ranked it,
the glossary terms that fired for it, its related items, and something to paste: the GraphQL
selection (validated against the schema) or a ``SELECT`` skeleton. SQL tables found together
get their FK join paths with ON clauses.

A signal's bar is its share in rank fusion, ``weight / (rrf_k + rank)``, scaled so the largest
share on the page fills the bar: a first place in a heavily weighted signal is a long bar, a
tenth place in a light one a short bar. (Score fusion, the default, normalises scores rather
than ranks; the bar shows which signals back a hit and how strongly, not the fused arithmetic.)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from schemaseek.config import SearchSettings
from schemaseek.documents import GRAPHQL_KINDS, DocKind, Hit, Related
from schemaseek.federation import Member, federated_search
from schemaseek.paths.graphql import root_path, selection_skeleton
from schemaseek.paths.joins import JoinPath, join_paths, select_skeleton
from schemaseek.query.filters import SearchFilter
from schemaseek.sources.records import table_data

__all__ = ["ResultView", "SearchParams", "SearchView", "SignalBar", "search_view"]

logger = logging.getLogger(__name__)

MAX_LIMIT = 50


@dataclass(frozen=True, slots=True)
class SearchParams:
    """The page's query string: ``/?q=...&sources=a,b&kinds=...&mode=...&limit=...``."""

    q: str = ""
    sources: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    mode: str = "hybrid"
    limit: int = 10

    @classmethod
    def parse(cls, values: dict[str, list[str]]) -> SearchParams:
        def many(name: str) -> tuple[str, ...]:
            parts = [p.strip() for v in values.get(name, []) for p in v.split(",")]
            return tuple(dict.fromkeys(p for p in parts if p))

        raw_limit = (values.get("limit") or ["10"])[0]
        limit = int(raw_limit) if raw_limit.isdigit() else 10
        mode = (values.get("mode") or ["hybrid"])[0]
        return cls(
            q=(values.get("q") or [""])[0].strip(),
            sources=many("sources"),
            kinds=tuple(k for k in many("kinds") if k in {d.value for d in DocKind}),
            mode=mode if mode in ("hybrid", "keyword", "vector") else "hybrid",
            limit=max(1, min(MAX_LIMIT, limit)),
        )

    def link(self) -> str:
        """The deep link of this search."""
        pairs = [("q", self.q)]
        pairs += [("sources", ",".join(self.sources))] if self.sources else []
        pairs += [("kinds", ",".join(self.kinds))] if self.kinds else []
        pairs += [("mode", self.mode)] if self.mode != "hybrid" else []
        pairs += [("limit", str(self.limit))] if self.limit != 10 else []
        return "/?" + urlencode(pairs)


@dataclass(frozen=True, slots=True)
class SignalBar:
    name: str
    rank: int
    score: float
    share: float  # 0..1 of the page's largest share


@dataclass(slots=True)
class ResultView:
    position: int
    hit: Hit
    member: str
    bars: list[SignalBar] = field(default_factory=list)
    path: str | None = None
    required_args: list[str] = field(default_factory=list)
    paste: str | None = None
    paste_kind: str = ""
    paste_note: str = ""

    @property
    def related(self) -> tuple[Related, ...]:
        return self.hit.related


@dataclass(slots=True)
class SearchView:
    params: SearchParams
    results: list[ResultView] = field(default_factory=list)
    joins: list[tuple[JoinPath, str]] = field(default_factory=list)
    examples: list[dict[str, Any]] = field(default_factory=list)
    degraded: bool = False
    took_ms: float = 0.0
    mode: str = ""
    query_id: str = ""
    error: str = ""


def _bars(results: Sequence[ResultView], settings: SearchSettings) -> None:
    raw: list[list[tuple[str, int, float, float]]] = []
    for view in results:
        signals = view.hit.explanation.signals
        rows = [
            (name, s.rank, s.score, settings.weights.get(name, 1.0) / (settings.rrf_k + s.rank))
            for name, s in signals.items()
        ]
        raw.append(sorted(rows, key=lambda r: -r[3]))
    top = max((r[3] for rows in raw for r in rows), default=0.0) or 1.0
    for view, rows in zip(results, raw, strict=True):
        view.bars = [SignalBar(n, rank, score, share / top) for n, rank, score, share in rows]


def search_view(
    members: Sequence[Member], settings: SearchSettings, params: SearchParams
) -> SearchView:
    """One search and everything the page shows about its results."""
    view = SearchView(params)
    if not params.q:
        return view
    answer = federated_search(
        members, params.q, limit=params.limit, mode=params.mode, settings=settings,
        search_filter=SearchFilter(
            kinds=tuple(DocKind(k) for k in params.kinds), sources=params.sources
        ),
    )  # fmt: skip
    view.degraded, view.took_ms, view.mode = answer.degraded, answer.took_ms, answer.mode
    view.query_id, view.examples = answer.query_id, list(answer.examples)
    view.results = [ResultView(i, h.hit, h.member) for i, h in enumerate(answer.hits, 1)]
    _bars(view.results, settings)
    indexes = {m.name: index for m in members if (index := m.index) is not None}
    order = answer.ids()
    tables: dict[str, list[ResultView]] = {}
    for result in view.results:
        index = indexes.get(result.member)
        doc = result.hit.document
        if index is None:
            continue
        if doc.kind in GRAPHQL_KINDS:
            path = root_path(index, doc.id, prefer=order)
            if path is not None:
                result.path = path.text()
                result.required_args = [f"{n}: {t}" for s in path.steps for n, t in s.args]
            skeleton = selection_skeleton(index, doc.id, prefer=order)
            result.paste, result.paste_kind = skeleton.query, "GraphQL"
            result.paste_note = "; ".join(skeleton.errors)
        elif doc.kind is DocKind.SQL_TABLE:
            tables.setdefault(result.member, []).append(result)
    for member, found in tables.items():
        paths = []
        if len(found) >= 2:
            try:
                paths = join_paths(indexes[member].graph, [r.hit.id for r in found])
            except Exception as exc:  # a join path is a convenience; the hits stand without it
                logger.warning("join paths in %r failed: %s", member, exc)
        view.joins += [(p, p.sql()) for p in paths]
        for result in found:
            columns = [c["name"] for c in table_data(result.hit.document).get("columns", [])]
            through = next((p for p in paths if result.hit.id in p.tables), None)
            result.paste = select_skeleton(result.hit.id, columns, through)
            result.paste_kind = "SQL"
    return view
