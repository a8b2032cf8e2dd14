"""What every source produces: its documents plus the relationship edges between them
(:class:`~schemaseek.documents.Edge`, which lives with the documents it connects)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from schemaseek.documents import Document, Edge

__all__ = ["SourceKind", "SourceSchema", "stable_hash"]

SourceKind = Literal["graphql", "sql"]
"""What a source reads: a GraphQL schema, or a SQL catalog (every database backend, Snowflake
and catalog files included)."""


@dataclass(slots=True)
class SourceSchema:
    """One source's schema, ready to index: documents, edges and a change-detection hash."""

    name: str
    kind: SourceKind
    documents: list[Document]
    edges: list[Edge]
    schema_hash: str
    raw: dict[str, Any] = field(default_factory=dict)


def stable_hash(parts: list[str]) -> str:
    """SHA-256 of sorted parts: the order in which a schema lists things never matters."""
    digest = hashlib.sha256()
    for part in sorted(parts):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()
