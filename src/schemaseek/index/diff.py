"""The incremental update of an index: what one source's new schema changes, as data.

:class:`SourceDiff` is computed from the serving state without touching it; embedding the
``changed`` documents is the caller's business (the plain index embeds in one call, an engine
in cancellable batches behind circuit breakers); :meth:`SchemaIndex.apply_diff
<schemaseek.index.SchemaIndex.apply_diff>` installs it. Both :meth:`SchemaIndex.refresh
<schemaseek.index.SchemaIndex.refresh>` and the engine's refresh take this one path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from schemaseek.documents import Document, Edge
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.sources.base import SourceSchema

__all__ = ["HashedDocuments", "SourceDiff", "content_hash", "diff_source", "keeps_shape"]


@runtime_checkable
class HashedDocuments(Protocol):
    """Documents that know each one's content hash without parsing it (a snapshot's)."""

    def content_hash(self, doc_id: str) -> str: ...


def content_hash(documents: Mapping[str, Document], doc_id: str) -> str:
    """The content hash of ``documents[doc_id]``: stored by lazily read documents, computed
    (once, then cached) by plain ones."""
    if isinstance(documents, HashedDocuments):
        return documents.content_hash(doc_id)
    return documents[doc_id].content_hash()


@dataclass(frozen=True, slots=True)
class SourceDiff:
    """One source's new schema against what the index serves.

    ``sources`` is the index's full source list afterwards, ``documents`` every document
    then indexed (glossary context included), ``changed`` the ids added or updated (by content
    hash), ``removed`` the ids gone. ``added`` counts the new ids among ``changed``.
    """

    schema: SourceSchema
    sources: tuple[SourceSchema, ...]
    documents: dict[str, Document]
    matcher: GlossaryMatcher | None
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    added: int
    schema_changed: bool

    @property
    def empty(self) -> bool:
        """No document added, changed or removed, and the same schema hash."""
        return not self.changed and not self.removed and not self.schema_changed


def diff_source(
    current: Mapping[str, Document],
    before: Sequence[SourceSchema],
    schema: SourceSchema,
    prepared: tuple[dict[str, Document], GlossaryMatcher | None],
) -> SourceDiff:
    """The diff that replaces the source named like ``schema`` (or adds it) in ``before``;
    ``prepared`` holds the documents and matcher of the resulting source list."""
    documents, matcher = prepared
    sources = (*tuple(s for s in before if s.name != schema.name), schema)
    removed = tuple(d for d in current if d not in documents)
    changed = tuple(
        d
        for d, doc in documents.items()
        if d not in current or content_hash(current, d) != doc.content_hash()
    )
    old = next((s for s in before if s.name == schema.name), None)
    return SourceDiff(
        schema=schema,
        sources=sources,
        documents=documents,
        matcher=matcher,
        changed=changed,
        removed=removed,
        added=sum(1 for d in changed if d not in current),
        schema_changed=old is None or old.schema_hash != schema.schema_hash,
    )


def keeps_shape(
    current: Mapping[str, Document], before: Sequence[SourceSchema], diff: SourceDiff
) -> bool:
    """Whether installing ``diff`` leaves what derives from ids, names, targets and edges
    (graph, pins, cards, ids per source) as it is: no id added or removed, the same edges, and
    every changed document keeps its name and target."""
    documents = diff.documents
    if diff.removed or len(documents) != len(current) or any(d not in current for d in documents):
        return False
    if [s.name for s in before] != [s.name for s in diff.sources]:
        return False
    if [_shape(s.edges) for s in before] != [_shape(s.edges) for s in diff.sources]:
        return False
    for doc_id in diff.changed:
        old, new = current[doc_id], documents[doc_id]
        if (old.name, old.target) != (new.name, new.target):
            return False
    return True


def _shape(edges: Sequence[Edge]) -> list[tuple[str, str, str, Any]]:
    return [(e.source, e.target, e.relation, e.data) for e in edges]
