"""What every source produces: documents plus the relationship edges between them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from schemaseek.documents import Document


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed relationship between two document ids.

    ``relation`` names it: GraphQL ``returns`` (root field → type), ``hasField`` (type → the
    type of one of its fields), ``member`` (type → one of its field documents); SQL
    ``foreignKey`` (referencing table → referenced table). ``data`` carries what a join needs
    (``columns``, ``ref_columns``, ``inferred``) or the GraphQL field name.
    """

    source: str
    target: str
    relation: str
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(slots=True)
class SourceSchema:
    """One source's schema, ready to index: documents, edges and a change-detection hash."""

    name: str
    kind: str  # "graphql" or "sql"
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
