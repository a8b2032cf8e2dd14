"""GraphQL source: an SDL file, an introspection JSON file or a built schema → documents and edges.

Documents (``Document.source`` is the ``source`` argument):

* one ``GRAPHQL_ROOT_FIELD`` per field of the query, mutation and subscription root types, with
  id ``<RootTypeName>.<field>`` using the schema's actual root type names (``QueryRoot.orders``);
* one ``GRAPHQL_TYPE`` per named type (root types included, flagged by ``data["root_operation"]``),
  id = the type name; introspection ``__*`` types and the built-in scalars are skipped. Its
  ``data`` says what the type is to an agent (``role``, :mod:`~schemaseek.sources.graphql_roles`)
  and its ``context`` where it is reached from (up to 12 fields returning it, through
  connection wrappers: ``reached from Repository.pullRequests, ...``);
* one ``GRAPHQL_FIELD`` per field of every non-root object, interface and input object type,
  id ``<Type>.<field>``.

``Document.data`` is a :class:`~schemaseek.sources.records.GraphQLTypeData` or
:class:`~schemaseek.sources.records.GraphQLFieldData`.

Edges (only between documents, no self-loops, no duplicates): root field or field → its named
type (``returns``), type → named type of its fields (``hasField``, ``data["field"]``), type → its
field documents (``member``), type → interface (``implements``), union → member
(``unionMember``). Root types get no ``member`` or ``hasField`` edges: they would be hubs
joining every entry point; their fields link to what they return.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLError,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    build_ast_schema,
    build_client_schema,
    get_named_type,
    is_introspection_type,
    is_non_null_type,
    is_specified_scalar_type,
    parse,
    print_ast,
    print_schema,
)
from graphql.validation.validate import validate_sdl

from schemaseek.documents import DocKind, Document, Edge, Relation
from schemaseek.errors import SourceError
from schemaseek.sources.base import SourceSchema, stable_hash
from schemaseek.sources.graphql_roles import TypeRoleInfo, incoming_fields, type_roles
from schemaseek.sources.records import (
    ArgumentRecord,
    GraphQLFieldData,
    GraphQLTypeData,
    Operation,
    TypeKind,
)

try:  # graphql-core >= 3.3 keeps defaults as literals; 3.2 only as coerced values
    from graphql.utilities.get_default_value_ast import get_default_value_ast
except ImportError:  # pragma: no cover - graphql-core 3.2
    get_default_value_ast = None  # type: ignore[assignment]

__all__ = ["MAX_MEMBERS", "from_schema", "load_introspection", "load_sdl"]

MAX_MEMBERS = 64
"""At most this many member strings per document, so huge types stay bounded."""

_FieldLike = GraphQLField | GraphQLInputField
_Fielded = GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType


def load_sdl(path: str | Path, source: str = "graphql") -> SourceSchema:
    """Read a GraphQL SDL file; a syntax or SDL error names the file, line and column."""
    file = Path(path)
    text = _read_text(file)
    try:
        document = parse(text)
    except GraphQLError as exc:
        raise SourceError(f"{file}: invalid GraphQL SDL{_position(exc)}: {exc.message}") from exc
    errors = validate_sdl(document)
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise SourceError(f"{file}: invalid GraphQL SDL{_position(first)}: {first.message}{more}")
    try:
        schema = build_ast_schema(document, assume_valid_sdl=True)
    except (GraphQLError, TypeError) as exc:
        raise SourceError(f"{file}: cannot build GraphQL schema: {exc}") from exc
    return from_schema(schema, source)


def load_introspection(path: str | Path, source: str = "graphql") -> SourceSchema:
    """Read an introspection result: ``{"data": {"__schema": ...}}`` or ``{"__schema": ...}``."""
    file = Path(path)
    text = _read_text(file)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"{file}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    if isinstance(payload, dict) and isinstance(payload.get("data"), dict):
        payload = payload["data"]
    if not isinstance(payload, dict) or not isinstance(payload.get("__schema"), dict):
        raise SourceError(
            f'{file}: not an introspection result (expected {{"data": {{"__schema": ...}}}} '
            'or {"__schema": ...})'
        )
    try:
        schema = build_client_schema({"__schema": payload["__schema"]})
    except (GraphQLError, TypeError, KeyError, ValueError) as exc:
        raise SourceError(f"{file}: invalid introspection result: {exc}") from exc
    return from_schema(schema, source)


def from_schema(schema: GraphQLSchema, source: str = "graphql") -> SourceSchema:
    """Turn a graphql-core schema into documents, edges, a normalized hash and printed SDL."""
    roots = _root_operations(schema)
    roles = type_roles(schema)
    incoming = incoming_fields(schema, roles)
    types = sorted((t for t in schema.type_map.values() if _indexed(t)), key=lambda t: t.name)
    documents: list[Document] = []
    edges = _EdgeCollector()
    for named in types:
        operation = roots.get(named.name)
        documents.append(
            _type_document(
                named, source, operation, roles.get(named.name), incoming.get(named.name, ())
            )
        )
        if isinstance(named, _Fielded):
            for field_name, field in named.fields.items():
                field_id = f"{named.name}.{field_name}"
                target = get_named_type(field.type).name
                documents.append(
                    _field_document(schema, named.name, operation, field_name, field, source)
                )
                edges.add(field_id, target, Relation.RETURNS)
                if operation is None:
                    # Root types would be hubs joining every entry point; their fields link
                    # to what they return instead.
                    edges.add(named.name, field_id, Relation.MEMBER)
                    edges.add(named.name, target, Relation.HAS_FIELD, field_name)
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for interface in named.interfaces:
                edges.add(named.name, interface.name, Relation.IMPLEMENTS)
        if isinstance(named, GraphQLUnionType):
            for member in named.types:
                edges.add(named.name, member.name, Relation.UNION_MEMBER)
    ids = {doc.id for doc in documents}
    return SourceSchema(
        name=source,
        kind="graphql",
        documents=documents,
        edges=[e for e in edges.edges() if e.source in ids and e.target in ids],
        schema_hash=stable_hash(_hash_parts(types, roots)),
        raw={"sdl": print_schema(schema)},
    )


def _read_text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise SourceError(f"{file}: GraphQL schema file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{file}: cannot read GraphQL schema file: {exc}") from exc


def _position(error: GraphQLError) -> str:
    if error.locations:
        loc = error.locations[0]
        return f" at line {loc.line}, column {loc.column}"
    return ""


def _root_operations(schema: GraphQLSchema) -> dict[str, Operation]:
    pairs: list[tuple[GraphQLObjectType | None, Operation]] = [
        (schema.query_type, "query"),
        (schema.mutation_type, "mutation"),
        (schema.subscription_type, "subscription"),
    ]
    return {t.name: op for t, op in pairs if t is not None}


def _indexed(named: GraphQLNamedType) -> bool:
    return not (is_introspection_type(named) or is_specified_scalar_type(named))


def _type_kind(named: GraphQLNamedType) -> TypeKind:
    kinds: list[tuple[type[GraphQLNamedType], TypeKind]] = [
        (GraphQLObjectType, "object"),
        (GraphQLInterfaceType, "interface"),
        (GraphQLUnionType, "union"),
        (GraphQLEnumType, "enum"),
        (GraphQLInputObjectType, "input_object"),
    ]
    return next((name for cls, name in kinds if isinstance(named, cls)), "scalar")


def _member_names(named: GraphQLNamedType) -> list[str]:
    if isinstance(named, _Fielded):
        return list(named.fields)
    if isinstance(named, GraphQLEnumType):
        return list(named.values)
    if isinstance(named, GraphQLUnionType):
        return [t.name for t in named.types]
    return []


def _describe(description: str | None, deprecation: str | None) -> str:
    text = (description or "").strip()
    if deprecation is not None:
        note = f"Deprecated: {deprecation}".strip()
        text = f"{text}\n{note}" if text else note
    return text


def _args(field: _FieldLike) -> list[ArgumentRecord]:
    if not isinstance(field, GraphQLField):
        return []
    return [_arg_data(name, arg) for name, arg in field.args.items()]


def _default(value: GraphQLArgument | GraphQLInputField) -> str | None:
    """The default value as GraphQL source text (``20``, ``["a"]``), or None."""
    if get_default_value_ast is not None:
        literal = get_default_value_ast(value)
        return None if literal is None else print_ast(literal)
    return None if value.default_value is Undefined else repr(value.default_value)


def _arg_data(name: str, arg: GraphQLArgument) -> ArgumentRecord:
    default = _default(arg)
    return {
        "name": name,
        "type": str(arg.type),
        "required": is_non_null_type(arg.type) and default is None,
        "default": default,
        "description": arg.description or "",
    }


def _field_data(parent: str, field: _FieldLike) -> GraphQLFieldData:
    return {
        "parent": parent,
        "return_type": str(field.type),
        "named_type": get_named_type(field.type).name,
        "args": _args(field),
        "deprecated": field.deprecation_reason is not None,
        "deprecation_reason": field.deprecation_reason,
    }


def _type_document(
    named: GraphQLNamedType,
    source: str,
    operation: Operation | None,
    role: TypeRoleInfo | None,
    incoming: Sequence[str] = (),
) -> Document:
    members = _member_names(named)
    data: GraphQLTypeData = {
        "type_kind": _type_kind(named),
        "member_count": len(members),
        "root_operation": operation,
    }
    if role is not None:
        data["role"] = role.role
        data["wraps"] = role.wraps
        data["depth"] = role.depth
    if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
        data["interfaces"] = [i.name for i in named.interfaces]
    return Document(
        id=named.name,
        kind=DocKind.GRAPHQL_TYPE,
        source=source,
        name=named.name,
        description=_describe(named.description, None),
        members=tuple(members[:MAX_MEMBERS]),
        context=f"reached from {', '.join(incoming)}" if incoming else "",
        data=dict(data),
    )


def _field_document(
    schema: GraphQLSchema,
    parent: str,
    operation: Operation | None,
    name: str,
    field: _FieldLike,
    source: str,
) -> Document:
    """A root field (``operation`` set) or a field of a non-root type."""
    data = _field_data(parent, field)
    args = [f"{a['name']}: {a['type']}" for a in data["args"]]
    if operation is not None:
        data["operation"] = operation
        # The operation's own text only: what the returned type holds is reached through the
        # graph (returns edges), so keyword search does not credit a root field with every
        # word of the type behind it.
        members = [data["return_type"], *args]
    else:
        data["input"] = isinstance(field, GraphQLInputField)
        if isinstance(field, GraphQLInputField):
            data["default"] = _default(field)
        members = [data["return_type"], *args]
    return Document(
        id=f"{parent}.{name}",
        kind=DocKind.GRAPHQL_FIELD if operation is None else DocKind.GRAPHQL_ROOT_FIELD,
        source=source,
        name=name,
        description=_describe(field.description, field.deprecation_reason),
        members=tuple(members[:MAX_MEMBERS]),
        data=dict(data),
    )


class _EdgeCollector:
    """Collects edges without self-loops or duplicates (one edge per source/target/relation)."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, str, Relation], Edge] = {}

    def add(self, source: str, target: str, relation: Relation, field: str | None = None) -> None:
        if source == target:
            return
        key = (source, target, relation)
        edge = self._edges.get(key)
        if edge is None:
            data: dict[str, Any] = {} if field is None else {"field": field, "fields": [field]}
            self._edges[key] = Edge(source, target, relation, data)
        elif field is not None:
            edge.data["fields"].append(field)

    def edges(self) -> list[Edge]:
        return list(self._edges.values())


def _field_signature(type_name: str, name: str, field: _FieldLike) -> str:
    args = sorted(
        f"{a['name']}: {a['type']} = {a['default']} # {a['description']}" for a in _args(field)
    )
    default = _default(field) if isinstance(field, GraphQLInputField) else None
    return (
        f"field {type_name}.{name}({', '.join(args)}): {field.type} = {default}"
        f" | {field.description or ''} | {field.deprecation_reason}"
    )


def _hash_parts(types: Iterable[GraphQLNamedType], roots: Mapping[str, str]) -> list[str]:
    """Order-independent signatures: reordering types or fields in the SDL keeps the hash."""
    parts = [f"root {op}={name}" for name, op in roots.items()]
    for named in types:
        extra: list[str] = []
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            extra = sorted(i.name for i in named.interfaces)
        elif isinstance(named, GraphQLUnionType):
            extra = sorted(t.name for t in named.types)
        elif isinstance(named, GraphQLEnumType):
            extra = sorted(f"{k}@{v.deprecation_reason}" for k, v in named.values.items())
        parts.append(
            f"type {_type_kind(named)} {named.name} [{', '.join(extra)}]"
            f" | {named.description or ''}"
        )
        if isinstance(named, _Fielded):
            parts.extend(_field_signature(named.name, n, f) for n, f in named.fields.items())
    return parts
