"""What building and refreshing an index report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schemaseek.index.diff import SourceDiff

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

    @classmethod
    def of(cls, diff: SourceDiff, embedded: int, *, degraded: bool, took_s: float) -> RefreshReport:
        """The report of installing ``diff`` with ``embedded`` documents embedded."""
        return cls(
            source=diff.schema.name,
            added=diff.added,
            changed=len(diff.changed) - diff.added,
            removed=len(diff.removed),
            embedded=embedded,
            degraded=degraded,
            took_s=took_s,
        )


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
