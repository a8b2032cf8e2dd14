"""What each GraphQL type is to an agent that wants data, read from the schema's structure.

An agent can only read a type that some query root field leads to. Everything else in a
schema is plumbing: what it sends (input objects), chooses from (enums, scalars), gets back
from an action (mutation payloads), or pages through (connection and edge wrappers around the
type that holds the data). :func:`type_roles` tells them apart, for any schema, without names:

* ``entity`` — an object, interface or union type reachable from a query root field through
  output fields (wrappers and unions crossed);
* ``wrapper`` — an object type that only pages over another (Relay ``*Connection`` /
  ``*Edge`` and look-alikes): a list field ``nodes``/``edges``/``items`` or a single ``node``
  next to paging fields (``pageInfo``, ``cursor``, ``totalCount``, ``hasNextPage`` ...);
  ``wraps`` names the type it pages over (through an edge, to its node);
* ``payload`` — an object, interface or union type that only mutation or subscription root
  fields lead to (what an action answers);
* ``unreachable`` — an output type no root field leads to;
* ``input``, ``enum``, ``scalar`` — by kind; ``root`` — the operation root types.

``depth`` is the number of field hops from the query root (wrappers are free), or ``None``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
    is_introspection_type,
)

__all__ = ["TypeRole", "TypeRoleInfo", "incoming_fields", "type_roles"]

TypeRole = Literal["entity", "wrapper", "payload", "unreachable", "input", "enum", "scalar", "root"]

_LIST_FIELDS = frozenset({"nodes", "edges", "items", "results", "collection"})
_PAGING_FIELDS = frozenset(
    {
        "pageinfo", "cursor", "totalcount", "count", "total", "hasnextpage", "haspreviouspage",
        "offset", "limit", "endcursor", "startcursor", "page", "pagesize", "nextcursor",
        "previouscursor", "totalpages", "hasmore",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TypeRoleInfo:
    """The role of one named type, what a wrapper wraps, and its depth below the query root."""

    role: TypeRole
    wraps: str | None = None
    depth: int | None = None


def _unwrap_list(field_type: GraphQLOutputType) -> bool:
    """Whether a field's type is a list (under non-null markers)."""
    while isinstance(field_type, GraphQLNonNull):
        field_type = field_type.of_type
    return isinstance(field_type, GraphQLList)


def _wrapped(named: GraphQLObjectType) -> str | None:
    """The type an object type pages over, when it looks like a connection or an edge."""
    fields = named.fields
    lowered = {name.lower(): name for name in fields}
    paging = sum(1 for name in lowered if name in _PAGING_FIELDS)
    carriers = [
        lowered[n] for n in _LIST_FIELDS if n in lowered and _unwrap_list(fields[lowered[n]].type)
    ]
    if carriers and paging and len(fields) - paging - len(carriers) <= 2:
        # prefer the node list over the edge list
        carrier = next((c for c in carriers if c.lower() == "nodes"), carriers[0])
        return str(get_named_type(fields[carrier].type).name)
    if "node" in lowered and paging and len(fields) <= 4:
        return str(get_named_type(fields[lowered["node"]].type).name)
    return None


def _resolve(name: str, wrappers: dict[str, str], limit: int = 4) -> str:
    """A wrapper's final node type (connection → edge → node)."""
    for _ in range(limit):
        if name not in wrappers:
            break
        name = wrappers[name]
    return name


def _members(named: GraphQLNamedType, schema: GraphQLSchema) -> list[GraphQLNamedType]:
    """Types one is "at" when a field returns ``named``: itself, and a union's members or an
    interface's implementations."""
    out: list[GraphQLNamedType] = [named]
    if isinstance(named, GraphQLUnionType):
        out.extend(named.types)
    elif isinstance(named, GraphQLInterfaceType):
        found = schema.get_implementations(named)
        out.extend(found.objects)
        out.extend(found.interfaces)
    return out


def _depths(
    schema: GraphQLSchema, starts: list[GraphQLObjectType], wrappers: dict[str, str]
) -> dict[str, int]:
    """Field hops from the fields of ``starts`` to every output type (0-1 BFS: wrappers free)."""
    depth: dict[str, int] = {}
    queue: deque[tuple[GraphQLNamedType, int]] = deque()

    def visit(named: GraphQLNamedType, hops: int) -> None:
        for member in _members(named, schema):
            cost = hops if member.name in wrappers else hops + 1
            if member.name not in depth or cost < depth[member.name]:
                depth[member.name] = cost
                if cost == hops:
                    queue.appendleft((member, cost))
                else:
                    queue.append((member, cost))

    for root in starts:
        for field in root.fields.values():
            visit(get_named_type(field.type), 0)
    while queue:
        named, hops = queue.popleft()
        if hops > depth.get(named.name, hops):
            continue
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field in named.fields.values():
                visit(get_named_type(field.type), hops)
    return depth


def type_roles(schema: GraphQLSchema) -> dict[str, TypeRoleInfo]:
    """The role of every named type of ``schema`` (module docstring); introspection types
    are left out."""
    roots = {
        t.name for t in (schema.query_type, schema.mutation_type, schema.subscription_type) if t
    }
    wrappers = {
        name: target
        for name, named in schema.type_map.items()
        if isinstance(named, GraphQLObjectType) and name not in roots
        and (target := _wrapped(named)) is not None and target != name
    }  # fmt: skip
    from_query = _depths(schema, [schema.query_type] if schema.query_type else [], wrappers)
    actions = [t for t in (schema.mutation_type, schema.subscription_type) if t is not None]
    from_actions = _depths(schema, actions, wrappers)
    roles: dict[str, TypeRoleInfo] = {}
    for name, named in schema.type_map.items():
        if is_introspection_type(named):
            continue
        depth = from_query.get(name)
        if name in roots:
            roles[name] = TypeRoleInfo("root")
        elif isinstance(named, GraphQLInputObjectType):
            roles[name] = TypeRoleInfo("input")
        elif isinstance(named, GraphQLEnumType):
            roles[name] = TypeRoleInfo("enum")
        elif not isinstance(named, GraphQLObjectType | GraphQLInterfaceType | GraphQLUnionType):
            roles[name] = TypeRoleInfo("scalar")
        elif name in wrappers:
            roles[name] = TypeRoleInfo("wrapper", _resolve(name, wrappers), depth)
        elif depth is not None:
            roles[name] = TypeRoleInfo("entity", None, depth)
        elif name in from_actions:
            roles[name] = TypeRoleInfo("payload")
        else:
            roles[name] = TypeRoleInfo("unreachable")
    return roles


def incoming_fields(
    schema: GraphQLSchema, roles: dict[str, TypeRoleInfo], limit: int = 12
) -> dict[str, list[str]]:
    """For each type, up to ``limit`` fields that return it (``Repository.pullRequests`` for
    ``PullRequest``, through its connection): where the type is found. Root fields first,
    then fields of shallower types, then by id."""
    found: dict[str, list[tuple[int, str]]] = {}
    for name, named in schema.type_map.items():
        info = roles.get(name)
        if info is None or info.role == "wrapper":
            continue
        if not isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            continue
        rank = -1 if info.role == "root" else (info.depth if info.depth is not None else 99)
        for field_name, field in named.fields.items():
            target = get_named_type(field.type).name
            wrapped = roles.get(target)
            if wrapped is not None and wrapped.role == "wrapper" and wrapped.wraps:
                target = wrapped.wraps
            if target != name:
                found.setdefault(target, []).append((rank, f"{name}.{field_name}"))
    return {t: [f for _, f in sorted(pairs)[:limit]] for t, pairs in found.items()}
