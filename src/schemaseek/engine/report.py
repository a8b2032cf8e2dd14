"""Engine states and reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from schemaseek.errors import SchemaSeekError

__all__ = ["EngineCancelled", "EngineReport", "EngineState"]


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
