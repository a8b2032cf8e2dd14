"""Result filters: include / exclude by id prefix pattern or exact id, kinds, a predicate."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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

    def source_ids(self, by_source: Mapping[str, Sequence[str]], most: int) -> Sequence[str] | None:
        """The ids of the wanted sources (from ``by_source``), or None when no source is
        wanted or they hold more than ``most`` ids."""
        if not self.sources:
            return None
        wanted = list(dict.fromkeys(self.sources))
        ids: Sequence[str] = (
            by_source.get(wanted[0], ())
            if len(wanted) == 1  # the common case: no copy on the search path
            else [i for s in wanted for i in by_source.get(s, ())]
        )
        return ids if len(ids) <= most else None

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
