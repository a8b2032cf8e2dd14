"""What building and refreshing an index report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["BuildProgress", "BuildReport", "RefreshReport"]

#: ``progress(stage, done, total)``: stage is "keyword" or "embedding".
BuildProgress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """What :meth:`SchemaIndex.refresh <schemaseek.index.SchemaIndex.refresh>` did."""

    source: str
    added: int
    changed: int
    removed: int
    embedded: int
    degraded: bool
    took_s: float


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What :meth:`SchemaIndex.build <schemaseek.index.SchemaIndex.build>` did."""

    sources: tuple[str, ...]
    documents: int
    embedded: int
    edges: int
    degraded: bool
    glossary_entries: int
    glossary_missing: tuple[str, ...]
    took_s: float
