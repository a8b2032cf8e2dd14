"""The shapes of what sources build: SQL table records and the ``data`` of their documents.

**Table records** (:class:`TableRecord`) are the ``SourceSchema.raw["tables"]`` layout every SQL
loader produces (reflection, the JSON Lines catalog, Snowflake's metadata views) and every SQL
pass reads (documents, declared and inferred foreign keys, the schema hash, the service's
``GetSchema``).

**Document data.** :attr:`Document.data <schemaseek.documents.Document.data>` stays a plain
``dict[str, Any]``: documents of every kind share the field, and snapshots give it back as
JSON. The TypedDicts here say what the sources put there, per kind of document:

* ``GRAPHQL_TYPE``: :class:`GraphQLTypeData`; ``GRAPHQL_ROOT_FIELD`` and ``GRAPHQL_FIELD``:
  :class:`GraphQLFieldData` (arguments as :class:`ArgumentRecord`);
* ``SQL_TABLE`` identity documents: :class:`TableData`; a table's relationships document:
  :class:`RelationshipsData`; ``SQL_COLUMN`` facets: :class:`FacetData`.

Producers build the TypedDict and hand ``dict(...)`` of it to the document; consumers that read
known keys take a typed view with :func:`graphql_field_data`, :func:`graphql_type_data`,
:func:`table_data` or :func:`facet_data` (a cast: nothing is checked at run time, so readers
keep using ``.get`` for keys a kind may lack).
"""

# No ``from __future__ import annotations`` here: a TypedDict's ``__required_keys__`` is right
# only when its ``Required[...]`` annotations are evaluated, not kept as strings.
from typing import TYPE_CHECKING, Literal, Required, TypedDict, cast

if TYPE_CHECKING:
    from schemaseek.documents import Document

__all__ = [
    "ArgumentRecord",
    "ColumnRecord",
    "FacetData",
    "ForeignKeyRecord",
    "GraphQLFieldData",
    "GraphQLTypeData",
    "Operation",
    "RelationshipRecord",
    "RelationshipsData",
    "TableData",
    "TableRecord",
    "TypeKind",
    "facet_data",
    "graphql_field_data",
    "graphql_type_data",
    "table_data",
]


# -- SQL table records (``raw["tables"]``) ------------------------------------------------------


class ColumnRecord(TypedDict, total=False):
    """One column. Reflection and Snowflake fill every key; the catalog file has no
    ``primary_key`` or ``nullable``."""

    name: Required[str]
    type: str
    description: str
    primary_key: bool
    nullable: bool


class ForeignKeyRecord(TypedDict):
    """One declared foreign key. ``ref_table`` is the referenced table's id (``None`` when a
    catalog file does not name it), ``ref_name`` its bare name as the database reported it."""

    name: str | None
    columns: list[str]
    ref_table: str | None
    ref_name: str | None
    ref_columns: list[str]


class TableRecord(TypedDict):
    """One table or view: its id (the qualified name results show), where it lives, its
    columns in order, its primary key columns and declared foreign keys."""

    id: str
    name: str
    schema: str | None
    database: str | None
    is_view: bool
    description: str
    columns: list[ColumnRecord]
    primary_key: list[str]
    foreign_keys: list[ForeignKeyRecord]


# -- SQL document data --------------------------------------------------------------------------


class TableData(TypedDict, total=False):
    """``data`` of a table's identity document: bounded documents carry every key, single
    documents all but ``database`` and ``documents``, catalog documents ``columns``,
    ``schema`` and ``database`` only."""

    columns: list[ColumnRecord]
    primary_key: list[str]
    foreign_keys: list[ForeignKeyRecord]
    schema: str | None
    is_view: bool
    database: str | None
    documents: list[str]
    """Ids of the table's other documents (facets, relationships)."""


class FacetData(TypedDict):
    """``data`` of a column facet document (``<table>#<facet>[:<n>]``)."""

    facet: str
    chunk: int
    table: str
    columns: list[str]
    """The member column names, in table order."""


class RelationshipRecord(TypedDict):
    """One one-hop foreign key of a table, seen from the table (``direction``)."""

    direction: Literal["out", "in"]
    source: str
    target: str
    columns: list[str]
    ref_columns: list[str]
    inferred: bool


class RelationshipsData(TypedDict):
    """``data`` of a table's relationships document (``<table>#relationships``)."""

    table: str
    relationships: list[RelationshipRecord]


# -- GraphQL document data ----------------------------------------------------------------------

TypeKind = Literal["object", "interface", "union", "enum", "input_object", "scalar"]
Operation = Literal["query", "mutation", "subscription"]


class ArgumentRecord(TypedDict):
    """One argument of a field: its GraphQL type as written (``ID!``), whether a call must
    give it (non-null without a default), the default as GraphQL source text."""

    name: str
    type: str
    required: bool
    default: str | None
    description: str


class GraphQLTypeData(TypedDict, total=False):
    """``data`` of a ``GRAPHQL_TYPE`` document; ``interfaces`` on object and interface types.
    ``role``, ``wraps`` and ``depth`` say what the type is to an agent
    (:mod:`schemaseek.sources.graphql_roles`)."""

    type_kind: Required[TypeKind]
    member_count: Required[int]
    root_operation: Required[Operation | None]
    interfaces: list[str]
    role: str
    wraps: str | None
    depth: int | None


class GraphQLFieldData(TypedDict, total=False):
    """``data`` of a root field or field document. Root fields add ``operation``; fields of
    other types add ``input`` (a field of an input object), input fields also ``default``."""

    parent: Required[str]
    return_type: Required[str]
    named_type: Required[str]
    args: Required[list[ArgumentRecord]]
    deprecated: Required[bool]
    deprecation_reason: Required[str | None]
    operation: Operation
    input: bool
    default: str | None


# -- typed views of Document.data ---------------------------------------------------------------


def graphql_field_data(doc: "Document") -> GraphQLFieldData:
    """``doc.data`` of a ``GRAPHQL_ROOT_FIELD`` or ``GRAPHQL_FIELD`` document."""
    return cast("GraphQLFieldData", doc.data)


def graphql_type_data(doc: "Document") -> GraphQLTypeData:
    """``doc.data`` of a ``GRAPHQL_TYPE`` document."""
    return cast("GraphQLTypeData", doc.data)


def table_data(doc: "Document") -> TableData:
    """``doc.data`` of a table's identity document."""
    return cast("TableData", doc.data)


def facet_data(doc: "Document") -> FacetData:
    """``doc.data`` of a column facet document."""
    return cast("FacetData", doc.data)
