"""The types every component speaks: searchable documents, hits, explanations, responses."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class DocKind(StrEnum):
    """What a document stands for."""

    GRAPHQL_ROOT_FIELD = "graphql_root_field"
    GRAPHQL_TYPE = "graphql_type"
    GRAPHQL_FIELD = "graphql_field"
    SQL_TABLE = "sql_table"
    SQL_COLUMN = "sql_column"


GRAPHQL_KINDS = frozenset({DocKind.GRAPHQL_ROOT_FIELD, DocKind.GRAPHQL_TYPE, DocKind.GRAPHQL_FIELD})
SQL_KINDS = frozenset({DocKind.SQL_TABLE, DocKind.SQL_COLUMN})


@dataclass(frozen=True, slots=True)
class Document:
    """One searchable schema item.

    ``name`` is the item's own identifier (``abacusContract``, ``royalty_payment``),
    ``description`` its human text, ``members`` the names of its fields or columns with
    their types and descriptions, and ``context`` extra domain text (glossary context
    injected at index time). ``target`` is set on documents that stand for part of another
    item (a table's column facet or relationship neighbourhood): hits on them count for the
    target's card. ``data`` keeps source-specific metadata for display (argument lists, return
    types, column types); it never feeds ranking.
    """

    id: str
    kind: DocKind
    source: str
    name: str
    description: str = ""
    members: tuple[str, ...] = ()
    context: str = ""
    target: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    _content_hash: str = field(default="", init=False, repr=False, compare=False, hash=False)

    def embedding_text(self) -> str:
        """The text that is embedded for the vector signal (one string, most telling first)."""
        parts = [f"{self.kind_label()} {self.name}"]
        if self.description:
            parts.append(self.description)
        if self.members:
            parts.append("fields: " + ", ".join(self.members))
        if self.context:
            parts.append(self.context)
        return ". ".join(parts)

    def kind_label(self) -> str:
        """What the item is, in words: ``mutation`` and ``subscription`` root fields are
        named so, so that the text of an action reads as one."""
        operation = self.data.get("operation") if self.kind is DocKind.GRAPHQL_ROOT_FIELD else None
        if operation in ("mutation", "subscription"):
            return str(operation)
        return {
            DocKind.GRAPHQL_ROOT_FIELD: "query field",
            DocKind.GRAPHQL_TYPE: "type",
            DocKind.GRAPHQL_FIELD: "field",
            DocKind.SQL_TABLE: "table",
            DocKind.SQL_COLUMN: "column",
        }[self.kind]

    def content_hash(self) -> str:
        """SHA-256 over everything that affects ranking; equal hashes mean reusable vectors.
        Computed once per document (documents are immutable)."""
        if self._content_hash:
            return self._content_hash
        payload = json.dumps(
            [
                self.id,
                self.kind.value,
                self.name,
                self.description,
                list(self.members),
                self.context,
                self.target,
            ],
            ensure_ascii=False,
        )
        digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
        object.__setattr__(self, "_content_hash", digest)  # a cache, not a change of value
        return digest


class Relation(StrEnum):
    """What an :class:`Edge` says about its two ids (the value is what files and APIs show)."""

    RETURNS = "returns"
    """GraphQL: a root field or field → the named type it returns."""
    HAS_FIELD = "hasField"
    """GraphQL: a non-root type → the named type of one of its fields."""
    MEMBER = "member"
    """GraphQL: a non-root type → one of its field documents."""
    IMPLEMENTS = "implements"
    """GraphQL: an object or interface type → an interface it implements."""
    UNION_MEMBER = "unionMember"
    """GraphQL: a union → one of its member types."""
    FOREIGN_KEY = "foreignKey"
    """SQL: the referencing table → the referenced table."""

    @classmethod
    def parse(cls, value: str) -> Relation:
        """The relation named ``value``; ``ValueError`` naming the known ones otherwise."""
        try:
            return cls(value)
        except ValueError:
            known = ", ".join(r.value for r in cls)
            raise ValueError(f"unknown edge relation {value!r}; known: {known}") from None


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed relationship between two document ids.

    ``relation`` names it (:class:`Relation`); a plain string such as ``"foreignKey"`` (what
    snapshot files hold) is turned into the enum member, an unknown one raises ``ValueError``.
    ``data`` carries what a join needs (``columns``, ``ref_columns``, ``inferred``) or the
    GraphQL field name.
    """

    source: str
    target: str
    relation: Relation
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if type(self.relation) is not Relation:
            # frozen: the one place the value is normalised, before anyone can see it
            object.__setattr__(self, "relation", Relation.parse(self.relation))


@dataclass(frozen=True, slots=True)
class SignalHit:
    """A document's position in one signal's ranked list."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a hit was returned: per-signal rank and score, glossary entries, pinning."""

    signals: dict[str, SignalHit]
    fused_score: float
    pinned: bool = False
    glossary_terms: tuple[str, ...] = ()
    prefer: str | None = None
    reranked: bool = False
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "fused_score": round(self.fused_score, 6),
            "signals": {
                name: {"rank": hit.rank, "score": round(hit.score, 6)}
                for name, hit in self.signals.items()
            },
        }
        if self.pinned:
            out["pinned"] = True
        if self.glossary_terms:
            out["glossary"] = list(self.glossary_terms)
        if self.prefer:
            out["prefer"] = self.prefer
        if self.reranked:
            out["reranked"] = True
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True, slots=True)
class Related:
    """A graph neighbour of a hit, returned by augmentation."""

    id: str
    kind: DocKind
    source: str
    relation: str
    via: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "source": self.source,
            "relation": self.relation,
            "via": self.via,
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked result."""

    document: Document
    score: float
    explanation: Explanation
    related: tuple[Related, ...] = ()

    @property
    def id(self) -> str:
        return self.document.id

    def to_dict(self, explain: bool = True) -> dict[str, Any]:
        doc = self.document
        out: dict[str, Any] = {
            "id": doc.id,
            "kind": doc.kind.value,
            "source": doc.source,
            "score": round(self.score, 6),
            "related": [r.to_dict() for r in self.related],
        }
        out["explanation"] = self.explanation.to_dict() if explain else None
        return out


@dataclass(frozen=True, slots=True)
class SearchResponse:
    """What a search returns."""

    query: str
    mode: str
    hits: tuple[Hit, ...]
    degraded: bool
    took_ms: float
    examples: tuple[dict[str, Any], ...] = ()
    query_id: str = ""

    def ids(self) -> list[str]:
        return [h.id for h in self.hits]

    def to_dict(self, explain: bool = True) -> dict[str, Any]:
        return {
            "query": self.query,
            "query_id": self.query_id,
            "mode": self.mode,
            "degraded": self.degraded,
            "took_ms": round(self.took_ms, 3),
            "results": [h.to_dict(explain) for h in self.hits],
            "examples": list(self.examples),
        }
