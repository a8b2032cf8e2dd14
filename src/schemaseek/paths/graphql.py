"""GraphQL paths an agent can paste: from a root field down to a type, and the query for it.

* :func:`root_path`: the shortest way from a GraphQL root field (query roots first) down to a
  type or field, following ``returns`` (field → type) and ``member`` (type → field) edges
  forward, with each step's required arguments. Ties go to ids listed in ``prefer`` (a search's
  ranking), then to fewer required arguments, then to the smaller id.
* :func:`selection_skeleton`: a GraphQL operation along that path, required arguments as
  variables, validated with graphql-core against the source's schema before it is returned.
"""

from __future__ import annotations

import functools
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import graphql as gql

from schemaseek.documents import GRAPHQL_KINDS, DocKind, Document, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.sources.records import GraphQLFieldData, graphql_field_data

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

__all__ = [
    "MAX_ROOT_DEPTH",
    "PathStep",
    "RootPath",
    "SelectionSkeleton",
    "root_path",
    "schema_from_sdl",
    "selection_skeleton",
]

MAX_ROOT_DEPTH = 10  # root paths with more field steps are not searched for
_FIELD_KINDS = (DocKind.GRAPHQL_ROOT_FIELD, DocKind.GRAPHQL_FIELD)


@dataclass(frozen=True, slots=True)
class PathStep:
    """One field selected on the way, e.g. ``Repository.pullRequests`` on ``Repository``."""

    field: str
    name: str
    parent: str
    returns: str
    args: tuple[tuple[str, str], ...] = ()  # required arguments: (name, GraphQL type)


@dataclass(frozen=True, slots=True)
class RootPath:
    """A root field, then each field down to ``target`` (a type or a field id)."""

    target: str
    operation: str
    steps: tuple[PathStep, ...]

    def text(self) -> str:
        """``Query.repository → Repository.pullRequests → ... → PullRequestReview``."""
        parts = [s.field for s in self.steps]
        return " → ".join(parts if parts[-1] == self.target else [*parts, self.target])

    def to_dict(self) -> dict[str, Any]:
        args = {s.field: [f"{n}: {t}" for n, t in s.args] for s in self.steps if s.args}
        return {"path": self.text(), "operation": self.operation, "required_args": args}


@dataclass(slots=True)
class _FieldGraph:
    fields: dict[str, PathStep]  # field id → step (root fields included)
    out: dict[str, list[str]]  # type → its field ids
    into: dict[str, list[str]]  # type → ids of the fields returning it
    roots: dict[str, str]  # root field id → operation
    cache: dict[str, dict[str, int]]


_FIELD_GRAPHS: weakref.WeakKeyDictionary[SchemaGraph, _FieldGraph] = weakref.WeakKeyDictionary()


def _field_graph(graph: SchemaGraph, documents: Mapping[str, Document] | None) -> _FieldGraph:
    """Fields and types from ``returns``/``member`` edges (+ arguments from documents), cached."""
    if (built := _FIELD_GRAPHS.get(graph)) is not None:
        return built
    returns: dict[str, str] = {}
    parent: dict[str, str] = {}
    for _, _, edge in graph.digraph.weighted_edge_list():
        if edge.relation == Relation.RETURNS:
            returns[edge.source] = edge.target
        elif edge.relation == Relation.MEMBER:
            parent[edge.target] = edge.source
    for item in (documents or {}).values():  # fields returning built-in scalars have no edge
        if item.kind in _FIELD_KINDS:
            item_data = graphql_field_data(item)
            if not item_data.get("input"):
                returns.setdefault(item.id, item_data["named_type"])
    built = _FieldGraph({}, {}, {}, {}, {})
    for field_id, target in sorted(returns.items()):
        doc = documents.get(field_id) if documents is not None else None
        data: GraphQLFieldData | None = graphql_field_data(doc) if doc is not None else None
        owner = parent.get(field_id) or (data and data.get("parent")) or field_id.rpartition(".")[0]
        listed = data.get("args", ()) if data is not None else ()
        args = tuple((a["name"], a["type"]) for a in listed if a["required"])
        name = doc.name if doc is not None else field_id[len(owner) + 1 :]
        built.fields[field_id] = PathStep(field_id, name, owner, target, args)
        built.into.setdefault(target, []).append(field_id)
        if field_id in parent:
            built.out.setdefault(owner, []).append(field_id)
        elif doc is None or doc.kind is DocKind.GRAPHQL_ROOT_FIELD:
            built.roots[field_id] = str((data and data.get("operation")) or "query")
    _FIELD_GRAPHS[graph] = built
    return built


def _distances(fg: _FieldGraph, target: str) -> dict[str, int]:
    """Field steps from each type (and each root field, keyed ``-id``) down to ``target``.

    Backward BFS that stops after the level where the first query root field is found."""
    distance = fg.cache.get(target)
    if distance is not None:
        return distance
    distance, queue = {target: 0}, deque([target])
    best: int | None = None
    while queue:
        node = queue.popleft()
        steps = distance[node] + 1
        if steps > (best or MAX_ROOT_DEPTH):
            break
        for field_id in fg.into.get(node, ()):
            operation, owner = fg.roots.get(field_id), fg.fields[field_id].parent
            if operation is not None:
                distance.setdefault("-" + field_id, steps)
                best = best or (steps if operation == "query" else None)
            elif owner not in distance:
                distance[owner] = steps
                queue.append(owner)
    if len(fg.cache) > 4096:
        fg.cache.clear()
    fg.cache[target] = distance
    return distance


def root_path(
    index_or_graph: SchemaIndex | SchemaGraph,
    doc_id: str,
    *,
    documents: Mapping[str, Document] | None = None,
    prefer: Sequence[str] = (),
) -> RootPath | None:
    """The shortest path from a root field to the GraphQL type or field ``doc_id``.

    ``None`` when nothing leads there: unknown ids, SQL tables, root and input types, and types
    reached only through interfaces or unions. Pass ``documents`` with a bare graph to get the
    required arguments of each step.
    """
    graph = index_or_graph if isinstance(index_or_graph, SchemaGraph) else index_or_graph.graph
    if graph not in _FIELD_GRAPHS and not isinstance(index_or_graph, SchemaGraph):
        documents = index_or_graph.documents
    fg = _field_graph(graph, documents)
    rank = {d: i for i, d in enumerate(prefer)}

    def key(field_id: str) -> tuple[int, int, str]:
        return (rank.get(field_id, len(rank)), len(fg.fields[field_id].args), field_id)

    if doc_id in fg.roots:
        return RootPath(doc_id, fg.roots[doc_id], (fg.fields[doc_id],))
    last = fg.fields.get(doc_id)
    if last is None and doc_id not in graph:
        return None
    distance = _distances(fg, last.parent if last is not None else doc_id)
    roots = [r[1:] for r in distance if r[0] == "-"]
    if not roots:
        return None
    order = {"query": 0, "mutation": 1}
    root = min(roots, key=lambda r: (order.get(fg.roots[r], 2), distance["-" + r], *key(r)))
    steps = [fg.fields[root]]
    for remaining in range(distance["-" + root] - 1, 0, -1):
        options = fg.out.get(steps[-1].returns, ())
        ok = [f for f in options if distance.get(fg.fields[f].returns) == remaining - 1]
        steps.append(fg.fields[min(ok, key=key)])
    steps += [last] if last is not None else []
    return RootPath(doc_id, fg.roots[steps[0].field], tuple(steps))


@dataclass(frozen=True, slots=True)
class SelectionSkeleton:
    """A validated GraphQL operation (``query``), or ``errors`` saying why there is none."""

    target: str
    query: str | None
    variables: dict[str, str]
    path: RootPath | None
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.target, "valid": self.query is not None}
        if self.path is not None:
            out["path"] = self.path.text()
        if self.query is not None:
            out |= {"query": self.query, "variables": dict(self.variables)}
        return out | ({"errors": list(self.errors)} if self.errors else {})


@functools.lru_cache(maxsize=8)
def schema_from_sdl(sdl: str) -> gql.GraphQLSchema:
    """A graphql-core schema from SDL, cached (a few at most). The SDL was validated when it was
    loaded; ``assume_valid`` skips the type-system checks that reject some published schemas
    (GitHub's deprecated interface implementations) while operations are still validated."""
    return gql.build_schema(sdl, assume_valid=True)


def _leaf_selection(schema: gql.GraphQLSchema, type_name: str, limit: int) -> str:
    """``" { __typename id ... }"``: up to ``limit`` argument-free scalars; ``""`` for leaves."""
    named = schema.get_type(type_name)
    if gql.is_leaf_type(named):
        return ""
    picked = []
    if isinstance(named, gql.GraphQLObjectType | gql.GraphQLInterfaceType):
        picked = [
            n
            for n, f in named.fields.items()
            if gql.is_leaf_type(gql.get_named_type(f.type))
            and not any(gql.is_required_argument(a) for a in f.args.values())
        ]
        picked.sort(key=lambda n: n != "id")
    return " { " + " ".join(["__typename", *picked[:limit]]) + " }"


def selection_skeleton(
    index: SchemaIndex, doc_id: str, *, max_scalars: int = 5, prefer: Sequence[str] = ()
) -> SelectionSkeleton:
    """A GraphQL operation from a root field down to ``doc_id``, validated against the schema.

    Required arguments become variables named after them (``$id``, then ``$id2`` on a clash);
    the leaf selects ``__typename`` and up to ``max_scalars`` scalar fields.
    """
    doc = index.get(doc_id)
    if doc is None or doc.kind not in GRAPHQL_KINDS:
        return SelectionSkeleton(
            doc_id, None, {}, None, (f"{doc_id!r} is not a GraphQL type or field",)
        )
    path = root_path(index, doc_id, prefer=prefer)
    if path is None:
        return SelectionSkeleton(doc_id, None, {}, None, (f"no root field leads to {doc_id}",))
    source = next((s for s in index.sources if s.name == doc.source), None)
    sdl = source.raw.get("sdl") if source is not None else None
    if not sdl:
        return SelectionSkeleton(doc_id, None, {}, path, (f"source {doc.source!r} keeps no SDL",))
    schema = schema_from_sdl(sdl)
    variables: dict[str, str] = {}
    opened = []
    for step in path.steps:
        args = []
        for arg, type_ in step.args:
            var = next(v for i in range(1, 99) if (v := arg + str(i) * (i > 1)) not in variables)
            variables[var] = type_
            args.append(f"{arg}: ${var}")
        opened.append(step.name + (f"({', '.join(args)})" if args else ""))
    leaf = _leaf_selection(schema, path.steps[-1].returns, max_scalars)
    body = " { ".join(opened) + leaf + " }" * (len(opened) - 1)
    header = ", ".join(f"${n}: {t}" for n, t in variables.items())
    text = f"{path.operation}{f' ({header})' if header else ''} {{ {body} }}"
    errors = tuple(e.message for e in gql.validate(schema, gql.parse(text)))
    return SelectionSkeleton(doc_id, None if errors else text, variables, path, errors)
