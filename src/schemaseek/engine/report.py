"""Engine states and reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from schemaseek.errors import SchemaSeekError

if TYPE_CHECKING:
    from schemaseek.engine.core import SourceEngine

__all__ = ["EngineCancelled", "EngineReport", "EngineState", "engine_status"]


class EngineState(StrEnum):
    """Where an engine is; ``degraded`` serves keyword + glossary only."""

    INITIALIZING = "initializing"
    DEGRADED = "degraded"
    READY = "ready"
    FAILED = "failed"
    DESTROYED = "destroyed"


class EngineCancelled(SchemaSeekError):
    """The engine was destroyed while this work was running."""


@dataclass(frozen=True, slots=True)
class EngineReport:
    """What one start or refresh did. ``took_s`` runs until the updated index serves (the
    snapshot is written after that: ``extra["save_s"]``). ``error`` is set when it failed
    (the index then is what it was before); ``save_error`` when the index changed but its
    generation could not be saved (``generation`` then names the newest saved one, if any);
    ``held`` when a rollback kept the source on its generation."""

    source: str
    documents: int
    embedded: int
    reused: int
    added: int = 0
    changed: int = 0
    removed: int = 0
    generation: str | None = None
    took_s: float = 0.0
    degraded: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    save_error: str | None = None
    held: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``index --json`` line."""
        out: dict[str, Any] = {
            "source": self.source,
            "documents": self.documents,
            "embedded": self.embedded,
            "reused": self.reused,
            "generation": self.generation,
            "took_ms": round(self.took_s * 1000.0, 1),
            "degraded": self.degraded,
        }
        if self.error:
            out["error"] = self.error
        if self.save_error:
            out["save_error"] = self.save_error
        if self.held:
            out["held"] = True
        return out


def engine_status(engine: SourceEngine) -> dict[str, Any]:
    """``engine``'s state, counts, generation, circuits and last report (health endpoints)."""
    circuits = {}
    if engine.breakers is not None:
        circuits = {
            "embed": engine.breakers.embed_breaker.state.value,
            "embed_query": engine.breakers.query_breaker.state.value,
        }
    last = engine.last_report
    return {
        "source": engine.name,
        "state": engine.state.value,
        "documents": engine.index.document_count,
        "vectors": engine.index.vector_count,
        "generation": engine.generation,
        "circuits": circuits,
        "last_report": last.to_dict() if last else None,
    }


def report_of(
    engine: SourceEngine,
    took_s: float,
    documents: int,
    embedded: int,
    added: int = 0,
    changed: int = 0,
    removed: int = 0,
    *,
    reused: int | None = None,
    extra: dict[str, Any] | None = None,
    save_error: str | None = None,
    error: str | None = None,
    held: bool = False,
) -> EngineReport:
    """The report of work ``engine`` just did, with its generation and state as they are now
    (``reused`` defaults to the documents not embedded, 0 without a provider)."""
    if reused is None:
        reused = documents - embedded if engine.provider is not None else 0
    return EngineReport(
        source=engine.name,
        documents=documents,
        embedded=embedded,
        reused=reused,
        added=added,
        changed=changed,
        removed=removed,
        generation=engine.generation,
        took_s=took_s,
        degraded=engine.state is not EngineState.READY,
        error=error,
        extra=extra or {},
        save_error=save_error,
        held=held,
    )
