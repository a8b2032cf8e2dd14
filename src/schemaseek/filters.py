"""Result filters: include / exclude by id prefix pattern or exact id, kinds, a predicate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schemaseek.documents import DocKind, Document


def pattern_matches(pattern: str, doc_id: str) -> bool:
    """``"ANALYTICS.*"`` matches ids starting with ``"ANALYTICS."``; anything else is exact."""
    if pattern.endswith("*"):
        return doc_id.startswith(pattern[:-1])
    return doc_id == pattern


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Narrows results. Applied after fusion and before reranking; augmentation respects it."""

    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    kinds: Sequence[DocKind] = ()
    sources: Sequence[str] = ()
    predicate: Callable[[Document], bool] | None = None

    @property
    def active(self) -> bool:
        return bool(self.include or self.exclude or self.kinds or self.sources or self.predicate)

    def allows(self, doc: Document) -> bool:
        if self.kinds and doc.kind not in self.kinds:
            return False
        if self.sources and doc.source not in self.sources:
            return False
        if self.include and not any(pattern_matches(p, doc.id) for p in self.include):
            return False
        if self.exclude and any(pattern_matches(p, doc.id) for p in self.exclude):
            return False
        return self.predicate is None or self.predicate(doc)
