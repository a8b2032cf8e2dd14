"""Per-stage spans for ``TraceQuery``, without hooks in the pipeline itself.

A traced search runs through :meth:`SchemaIndex.search`'s ``instrument`` hook on a shallow copy
of the index's parts
whose components (keyword index, vector index, query embedder, glossary matcher, reranker,
graph) are wrapped in :class:`_Timed` proxies: every call to one of their methods becomes a
span. Repeated calls of one stage (graph neighbours during augmentation) are folded into one
span with a ``calls`` count.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from schemaseek.documents import SearchResponse
from schemaseek.index import SchemaIndex
from schemaseek.query.filters import SearchFilter
from schemaseek.query.shared import SharedQuery
from schemaseek.query.state import IndexParts, Mode

__all__ = ["Span", "Tracer", "traced_search"]

_STAGES: dict[str, dict[str, str]] = {
    "keyword": {"search": "keyword.search"},
    "vector": {"search": "vector.search", "sample_scores": "vector.background"},
    "embedder": {"embed_query": "embed_query"},
    "matcher": {"match": "glossary.match", "rank": "glossary.rank", "examples": "examples"},
    "reranker": {"rerank": "rerank"},
    "graph": {"neighbors": "augment.neighbors"},
}


@dataclass(slots=True)
class Span:
    """One timed stage (times in ms since the trace began)."""

    name: str
    start_ms: float
    duration_ms: float
    source: str = ""
    attributes: dict[str, str] = field(default_factory=dict)


class Tracer:
    """Collects spans; thread-safe."""

    def __init__(self) -> None:
        self.origin = time.perf_counter()
        self.spans: list[Span] = []
        self._lock = threading.Lock()

    def now_ms(self) -> float:
        return (time.perf_counter() - self.origin) * 1000.0

    @contextlib.contextmanager
    def span(self, name: str, source: str = "", **attributes: object) -> Iterator[dict[str, str]]:
        """Time the block; the yielded dict takes extra attributes."""
        start = self.now_ms()
        extra: dict[str, str] = {k: str(v) for k, v in attributes.items()}
        try:
            yield extra
        finally:
            self.add(name, start, self.now_ms() - start, source, extra)

    def add(
        self, name: str, start: float, duration: float, source: str, attrs: dict[str, str]
    ) -> None:
        """Record a span, folding repeats of a per-call stage into one."""
        with self._lock:
            if name.startswith("augment."):
                for span in self.spans:
                    if span.name == name and span.source == source:
                        span.duration_ms += duration
                        span.attributes["calls"] = str(int(span.attributes["calls"]) + 1)
                        return
                attrs = {**attrs, "calls": "1"}
            self.spans.append(Span(name, start, duration, source, attrs))

    def total_ms(self) -> float:
        return self.now_ms()


class _Timed:
    """A proxy timing the named methods of ``target``; everything else passes through."""

    def __init__(self, target: Any, methods: dict[str, str], tracer: Tracer, source: str):
        self._target = target
        self._methods = methods
        self._tracer = tracer
        self._source = source

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        stage = self._methods.get(name)
        if stage is None or not callable(value):
            return value
        return self._wrap(stage, value)

    def _wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self._tracer.span(stage, self._source):
                return fn(*args, **kwargs)

        return timed

    def __bool__(self) -> bool:
        return bool(self._target)

    def __len__(self) -> int:
        return len(self._target)

    def __contains__(self, item: object) -> bool:
        return item in self._target


def _wrap_parts(parts: IndexParts, tracer: Tracer, source: str) -> IndexParts:
    replaced: dict[str, Any] = {}
    for attr, methods in _STAGES.items():
        value = getattr(parts, attr)
        if value is not None:
            replaced[attr] = _Timed(value, methods, tracer, source)
    return dataclasses.replace(parts, **replaced)


def traced_search(
    index: SchemaIndex,
    tracer: Tracer,
    source: str,
    query: str,
    *,
    limit: int,
    mode: Mode,
    search_filter: SearchFilter,
    shared: SharedQuery | None = None,
) -> SearchResponse:
    """:meth:`SchemaIndex.search` with every stage timed into ``tracer``."""
    with tracer.span("pipeline", source) as attrs:
        response = index.search(
            query,
            limit=limit,
            mode=mode,
            search_filter=search_filter,
            instrument=lambda parts: _wrap_parts(parts, tracer, source),
            shared=shared,
        )
        attrs["hits"] = str(len(response.hits))
        attrs["degraded"] = str(response.degraded).lower()
    return response
