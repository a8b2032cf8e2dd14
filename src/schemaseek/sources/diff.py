"""What changed between two versions of one source: documents, root fields, types and tables.

:func:`diff_sources` compares documents by id and by an **order-free fingerprint**: the
document's ranking content (what :meth:`Document.content_hash` covers) with members sorted.
Listing types, fields, arguments or members in another order never yields a difference, in
line with the schema hash. Documents whose ranking content is equal but whose ``data`` differs
(an argument's default value, a column's nullability, list order aside) are reported apart as
``restated``: they are replaced without being embedded again.

On top of the document diff it names what a person would call the change:

* GraphQL: root fields added / changed / removed, and types added / changed / removed, a type
  being changed when its own document or any of its field documents was added, changed,
  removed or restated (adding ``Planet.moons`` changes type ``Planet``);
* SQL: tables added / changed / removed, a table's documents being its identity document and
  every document whose ``target`` is the table (facets, relationships).

``SourceDiff.to_embed(new)`` lists the documents an incremental index update must embed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from schemaseek.documents import DocKind, Document, Edge
from schemaseek.sources.base import SourceKind, SourceSchema

__all__ = ["SourceDiff", "diff_sources", "document_fingerprint"]


def _canonical(value: Any) -> Any:
    """JSON-ready value with mapping keys sorted and every list sorted by its JSON text."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _digest(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_fingerprint(doc: Document) -> str:
    """SHA-256 of a document's ranking content, members in sorted order."""
    return _digest(
        [
            doc.id,
            doc.kind.value,
            doc.name,
            doc.description,
            sorted(doc.members),
            doc.context,
            doc.target,
        ]
    )


def _data_fingerprint(doc: Document) -> str:
    return _digest(_canonical(doc.data))


def _edge_keys(edges: Iterable[Edge]) -> set[str]:
    return {_digest([e.source, e.target, e.relation, _canonical(e.data)]) for e in edges}


@dataclass(frozen=True, slots=True)
class SourceDiff:
    """The difference between two versions of one source (module docstring); ids sorted."""

    source: str
    kind: SourceKind
    hash_changed: bool
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    restated: tuple[str, ...] = ()
    edges_changed: bool = False
    added_root_fields: tuple[str, ...] = ()
    changed_root_fields: tuple[str, ...] = ()
    removed_root_fields: tuple[str, ...] = ()
    added_types: tuple[str, ...] = ()
    changed_types: tuple[str, ...] = ()
    removed_types: tuple[str, ...] = ()
    added_tables: tuple[str, ...] = ()
    changed_tables: tuple[str, ...] = ()
    removed_tables: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing an index holds differs (documents, their data, edges)."""
        return not (self.added or self.changed or self.removed or self.restated) and not (
            self.edges_changed
        )

    @property
    def embed_count(self) -> int:
        """How many documents an incremental update embeds: added plus changed."""
        return len(self.added) + len(self.changed)

    def to_embed(self, new: SourceSchema) -> list[Document]:
        """The documents of ``new`` that need embedding (added and changed), in its order."""
        wanted = {*self.added, *self.changed}
        return [d for d in new.documents if d.id in wanted]

    def to_dict(self) -> dict[str, Any]:
        """Every non-empty field, for JSON output."""
        out: dict[str, Any] = {"source": self.source, "kind": self.kind}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, tuple) and value:
                out[item.name] = list(value)
        out["hash_changed"] = self.hash_changed
        out["edges_changed"] = self.edges_changed
        return out


def diff_sources(old: SourceSchema, new: SourceSchema) -> SourceDiff:
    """Compare two versions of a source; see the module docstring."""
    before = {d.id: d for d in old.documents}
    after = {d.id: d for d in new.documents}
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed: list[str] = []
    restated: list[str] = []
    for doc_id in sorted(set(after) & set(before)):
        a, b = before[doc_id], after[doc_id]
        if document_fingerprint(a) != document_fingerprint(b):
            changed.append(doc_id)
        elif _data_fingerprint(a) != _data_fingerprint(b):
            restated.append(doc_id)
    touched = {*added, *changed, *removed, *restated}
    items: dict[str, tuple[str, ...]] = {}
    if new.kind == "graphql" or old.kind == "graphql":
        items = _graphql_items(before, after, added, removed, touched)
    elif new.kind == "sql" or old.kind == "sql":
        items = _table_items(before, after, touched)
    return SourceDiff(
        source=new.name,
        kind=new.kind,
        hash_changed=old.schema_hash != new.schema_hash,
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        restated=tuple(restated),
        edges_changed=_edge_keys(old.edges) != _edge_keys(new.edges),
        **items,
    )


def _graphql_items(
    before: Mapping[str, Document],
    after: Mapping[str, Document],
    added: list[str],
    removed: list[str],
    touched: set[str],
) -> dict[str, tuple[str, ...]]:
    def of_kind(ids: Iterable[str], kind: DocKind) -> tuple[str, ...]:
        docs = [after.get(i) or before[i] for i in ids]
        return tuple(sorted(d.id for d in docs if d.kind is kind))

    root = DocKind.GRAPHQL_ROOT_FIELD
    changed_ids = touched - set(added) - set(removed)
    types_touched: set[str] = set()
    for doc_id in touched:
        doc = after.get(doc_id) or before[doc_id]
        if doc.kind is DocKind.GRAPHQL_TYPE:
            types_touched.add(doc.id)
        elif doc.kind in (DocKind.GRAPHQL_FIELD, root):
            parent = doc.data.get("parent") or doc.id.rpartition(".")[0]
            types_touched.add(str(parent))
    added_types = set(of_kind(added, DocKind.GRAPHQL_TYPE))
    removed_types = set(of_kind(removed, DocKind.GRAPHQL_TYPE))
    changed_types = {
        t for t in types_touched - added_types - removed_types if t in after and t in before
    }
    return {
        "added_root_fields": of_kind(added, root),
        "changed_root_fields": of_kind(changed_ids, root),
        "removed_root_fields": of_kind(removed, root),
        "added_types": tuple(sorted(added_types)),
        "changed_types": tuple(sorted(changed_types)),
        "removed_types": tuple(sorted(removed_types)),
    }


def _table_items(
    before: Mapping[str, Document], after: Mapping[str, Document], touched: set[str]
) -> dict[str, tuple[str, ...]]:
    def table_of(doc: Document) -> str:
        return doc.target or doc.id

    old_tables = {table_of(d) for d in before.values()}
    new_tables = {table_of(d) for d in after.values()}
    hit = {table_of(after.get(i) or before[i]) for i in touched}
    return {
        "added_tables": tuple(sorted(new_tables - old_tables)),
        "changed_tables": tuple(sorted(hit & old_tables & new_tables)),
        "removed_tables": tuple(sorted(old_tables - new_tables)),
    }
