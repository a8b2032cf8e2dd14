"""Run labelled questions through a :class:`~schemaseek.index.SchemaIndex` and score them.

One index is built for all sources (timed as ``index_s``); each question is searched with
``limit=20`` in every requested mode. ``scope="per-source"`` ranks only the question's own
source (``sources=[question.source]``), ``"pooled"`` ranks everything together.

Latency is the wall time of each ``search`` call, query embedding included (after one
unmeasured warm-up search per mode, which loads the model's query session): the index's
in-memory query cache is shrunk to one entry and modes run one after another over the whole
set, so a question is never served from the cache of an earlier mode.

Some catalogs share a table between sources (Spider 2.0-Lite). Such documents are indexed as
``<source>:<fqn>`` and mapped back to ``<fqn>`` before scoring, so a pooled ranking counts any
copy of a gold table.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Edge
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.errors import ConfigError
from schemaseek.evaluation.datasets import Question
from schemaseek.evaluation.metrics import aggregate
from schemaseek.evaluation.outcomes import QuestionOutcome, question_outcome
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.query.pipeline import MODES, InvalidQueryError
from schemaseek.query.state import Mode
from schemaseek.sources.base import SourceSchema

__all__ = [
    "SCOPES",
    "EvalProgress",
    "EvalResult",
    "ModeResult",
    "Scope",
    "evaluate",
    "score_index",
]

Scope = Literal["per-source", "pooled"]
SCOPES: tuple[Scope, ...] = ("per-source", "pooled")
SEARCH_LIMIT = 20
_WARM_UP = "warm up the search path"

#: ``progress(stage, done, total)``: the build's stages, then ``"<mode> queries"``.
EvalProgress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class ModeResult:
    """One mode's scores: metric means, search latency and the index build time."""

    metrics: dict[str, float]
    latency_p50_ms: float
    latency_p95_ms: float
    index_s: float
    degraded: int = 0
    errors: int = 0
    questions: tuple[QuestionOutcome, ...] = ()
    """Each scored question's outcome (not part of :meth:`to_json`: JUnit reports use it)."""

    def to_json(self) -> dict[str, Any]:
        """``{"metrics", "latency_ms": {"p50", "p95"}, "index_s", "degraded", "errors"}``."""
        return {
            "metrics": {name: round(value, 4) for name, value in self.metrics.items()},
            "latency_ms": {
                "p50": round(self.latency_p50_ms, 3),
                "p95": round(self.latency_p95_ms, 3),
            },
            "index_s": round(self.index_s, 3),
            "degraded": self.degraded,
            "errors": self.errors,
        }


@dataclass(frozen=True, slots=True)
class EvalResult:
    """Everything one evaluation measured."""

    dataset: str
    scope: str
    queries: int
    skipped: int
    gold: str
    documents: int
    modes: dict[str, ModeResult]

    def to_json(self) -> dict[str, Any]:
        """``{"dataset", "scope", "queries", "skipped", "gold", "documents", "modes": {...}}``."""
        return {
            "dataset": self.dataset,
            "scope": self.scope,
            "queries": self.queries,
            "skipped": self.skipped,
            "gold": self.gold,
            "documents": self.documents,
            "modes": {name: result.to_json() for name, result in self.modes.items()},
        }


def evaluate(
    sources: Sequence[SourceSchema],
    questions: Sequence[Question],
    *,
    dataset: str,
    modes: Sequence[str] = ("hybrid",),
    scope: str = "per-source",
    kinds: Iterable[DocKind | str] = (),
    glossary: Glossary | None = None,
    settings: SearchSettings | None = None,
    provider: EmbeddingProvider | Literal["default"] | None = "default",
    gold: str = "tables",
    progress: EvalProgress | None = None,
) -> EvalResult:
    """Score ``questions`` against an index of ``sources`` in each of ``modes``.

    Args:
        sources: the schemas to index (all of them, whatever the scope).
        questions: labelled questions; those with empty gold are skipped and counted.
        dataset: the name reported in the result.
        modes: any of ``"keyword"``, ``"vector"``, ``"hybrid"`` (order kept, duplicates dropped).
        scope: ``"per-source"`` or ``"pooled"`` (module docstring).
        kinds: restrict rankings to these document kinds.
        glossary: optional glossary applied to the index.
        settings: search settings (default: ``SearchSettings()``).
        provider: the embedding provider, ``"default"`` for the local model. Not used (and
            not loaded) when the only mode is ``"keyword"``.
        gold: how the gold was chosen, reported as is.
        progress: called while building and querying (``EvalProgress``).

    Raises:
        ConfigError: unknown mode or scope, or no mode.
    """
    wanted = _modes(modes)
    if scope not in SCOPES:
        raise ConfigError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    kind_filter = tuple(DocKind(k) for k in kinds)
    indexed, labels = _unique_ids(sources)
    needs_vectors = any(m != "keyword" for m in wanted)
    base = settings or SearchSettings()
    index = SchemaIndex(
        indexed,
        glossary=glossary,
        provider=provider if needs_vectors else None,
        settings=base.model_copy(update={"query_cache_size": 1}),
    )
    started = time.perf_counter()
    report = index.build(progress)
    index_s = time.perf_counter() - started

    scored = [q for q in questions if q.gold]
    results: dict[str, ModeResult] = {}
    for mode in wanted:
        results[mode] = _run_mode(
            index, scored, mode, scope, kind_filter, labels, progress, index_s
        )
    return EvalResult(
        dataset=dataset,
        scope=scope,
        queries=len(scored),
        skipped=len(questions) - len(scored),
        gold=gold,
        documents=report.documents,
        modes=results,
    )


def score_index(
    index: SchemaIndex,
    questions: Sequence[Question],
    *,
    mode: Mode = "hybrid",
    scope: str = "pooled",
    kinds: Iterable[DocKind | str] = (),
) -> ModeResult:
    """Score ``questions`` on an index already built (several question sets or kinds can
    share one build); ``index_s`` is reported as 0. Questions without gold are left out."""
    kind_filter = tuple(DocKind(k) for k in kinds)
    scored = [q for q in questions if q.gold]
    return _run_mode(index, scored, mode, scope, kind_filter, {}, None, 0.0)


def _run_mode(
    index: SchemaIndex,
    questions: Sequence[Question],
    mode: Mode,
    scope: str,
    kinds: tuple[DocKind, ...],
    labels: dict[str, str],
    progress: EvalProgress | None,
    index_s: float,
) -> ModeResult:
    stage = f"{mode} queries"
    latencies: list[float] = []
    pairs: list[tuple[list[str], tuple[str, ...]]] = []
    outcomes: list[QuestionOutcome] = []
    degraded = errors = 0
    if progress is not None:
        progress(stage, 0, len(questions))
    if questions:  # loads lazy parts (the query session) outside the measured searches
        index.search(_WARM_UP, limit=1, mode=mode)
    for done, question in enumerate(questions, start=1):
        only = [question.source] if scope == "per-source" and question.source else []
        started = time.perf_counter()
        error = None
        try:
            response = index.search(
                question.question, limit=SEARCH_LIMIT, mode=mode, kinds=kinds, sources=only
            )
        except InvalidQueryError as exc:
            errors += 1  # scored as a miss: nothing ranked
            ranked: list[str] = []
            error = str(exc)
        else:
            latencies.append((time.perf_counter() - started) * 1000.0)
            degraded += response.degraded
            ranked = [labels.get(doc_id, doc_id) for doc_id in response.ids()]
        pairs.append((ranked, question.gold))
        took = (time.perf_counter() - started) * 1000.0
        outcomes.append(question_outcome(question, ranked, latency_ms=took, error=error))
        if progress is not None:
            progress(stage, done, len(questions))
    summary = aggregate(pairs)
    p50 = p95 = 0.0
    if latencies:
        p50, p95 = (float(v) for v in np.percentile(np.asarray(latencies), [50, 95]))
    return ModeResult(summary.metrics, p50, p95, index_s, degraded, errors, tuple(outcomes))


def _modes(modes: Sequence[str]) -> list[Mode]:
    chosen: list[Mode] = []
    for name in modes:
        mode = next((m for m in MODES if m == name), None)
        if mode is None:
            raise ConfigError(f"mode must be one of {', '.join(MODES)}, not {name!r}")
        if mode not in chosen:
            chosen.append(mode)
    if not chosen:
        raise ConfigError("give at least one mode")
    return chosen


def _unique_ids(sources: Sequence[SourceSchema]) -> tuple[list[SourceSchema], dict[str, str]]:
    """Rename documents whose id occurs in several sources to ``<source>:<id>``.

    Returns the (possibly new) sources and ``{new id: original id}`` for the renamed ones.
    """
    counts = Counter(doc.id for schema in sources for doc in schema.documents)
    shared = {doc_id for doc_id, n in counts.items() if n > 1}
    if not shared:
        return list(sources), {}
    out: list[SourceSchema] = []
    labels: dict[str, str] = {}
    for schema in sources:
        renamed = {
            doc.id: f"{schema.name}:{doc.id}" for doc in schema.documents if doc.id in shared
        }
        if not renamed:
            out.append(schema)
            continue
        labels.update({new: old for old, new in renamed.items()})
        documents = [
            dataclasses.replace(doc, id=renamed[doc.id]) if doc.id in renamed else doc
            for doc in schema.documents
        ]
        edges = [
            Edge(
                renamed.get(e.source, e.source), renamed.get(e.target, e.target), e.relation, e.data
            )
            for e in schema.edges
        ]
        out.append(dataclasses.replace(schema, documents=documents, edges=edges))
    return out, labels
