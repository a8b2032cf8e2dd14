"""SQL join paths an agent can paste: real foreign keys, each with its ON clause.

* :func:`join_paths`: deterministic BFS over ``foreignKey`` edges only, traversed both ways, each
  ON clause written in the key's real direction; between each pair of up to ``max_endpoints``
  tables at most ``max_paths`` shortest paths of at most ``max_edges`` edges. Similarity never
  creates a join: no edge, no path.
* :func:`relationships`: a table's one-edge joins, both directions.
* :func:`select_skeleton`: a ``SELECT`` over a table's first columns, along a join path.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from schemaseek.documents import Edge, Relation
from schemaseek.graph import SchemaGraph

__all__ = ["JoinPath", "join_paths", "relationships", "select_skeleton"]


@dataclass(frozen=True, slots=True)
class JoinPath:
    """Tables joined in order by real foreign keys, one ON clause per edge."""

    tables: tuple[str, ...]
    edges: tuple[Edge, ...]
    on: tuple[str, ...]
    inferred: bool

    def sql(self) -> str:
        """``FROM a JOIN b ON ... JOIN c ON ...``, ready to paste."""
        joins = [f"JOIN {t} ON {on}" for t, on in zip(self.tables[1:], self.on, strict=True)]
        return " ".join([f"FROM {self.tables[0]}", *joins])

    def to_dict(self) -> dict[str, Any]:
        return {"tables": list(self.tables), "on": list(self.on), "inferred": self.inferred}


def _on_clause(edge: Edge) -> str:
    columns, refs = edge.data.get("columns") or [], edge.data.get("ref_columns") or []
    if not columns or len(columns) != len(refs):
        return f"{edge.source} references {edge.target} (columns not recorded)"
    pairs = zip(columns, refs, strict=True)
    return " AND ".join(f"{edge.source}.{c} = {edge.target}.{r}" for c, r in pairs)


_Adjacency = dict[str, list[tuple[str, Edge]]]


def _fk_adjacency(graph_or_edges: SchemaGraph | Iterable[Edge]) -> _Adjacency:
    """Table → (neighbour, FK edge) in both directions, sorted for deterministic walks."""
    adjacency: _Adjacency = {}
    if isinstance(graph_or_edges, SchemaGraph):
        graph_or_edges = graph_or_edges.digraph.edges()
    for edge in graph_or_edges:
        if edge.relation == Relation.FOREIGN_KEY and edge.source != edge.target:
            adjacency.setdefault(edge.source, []).append((edge.target, edge))
            adjacency.setdefault(edge.target, []).append((edge.source, edge))
    for hops in adjacency.values():
        hops.sort(key=lambda h: (h[0], h[1].source, str(h[1].data.get("columns"))))
    return adjacency


def _make_path(start: str, hops: Sequence[tuple[str, Edge]]) -> JoinPath:
    edges = tuple(e for _, e in hops)
    inferred = any(bool(e.data.get("inferred")) for e in edges)
    tables = (start, *(t for t, _ in hops))
    return JoinPath(tables, edges, tuple(_on_clause(e) for e in edges), inferred)


def _pair_paths(adj: _Adjacency, a: str, b: str, max_edges: int, limit: int) -> list[JoinPath]:
    distance, queue = {b: 0}, deque([b])  # BFS from b, then walk from a down the gradient
    while queue and a not in distance:
        node = queue.popleft()
        for other, _ in adj.get(node, ()) if distance[node] < max_edges else ():
            if other not in distance:
                distance[other] = distance[node] + 1
                queue.append(other)
    found: list[JoinPath] = []

    def walk(node: str, hops: list[tuple[str, Edge]]) -> None:
        if node == b:
            found.append(_make_path(a, hops))
        for other, edge in adj.get(node, ()) if node != b else ():
            if len(found) < limit and distance.get(other) == distance[node] - 1:
                walk(other, [*hops, (other, edge)])

    if a in distance:
        walk(a, [])
    return found


def join_paths(
    graph_or_edges: SchemaGraph | Iterable[Edge],
    tables: Sequence[str],
    max_edges: int = 3,
    max_paths: int = 2,
    max_endpoints: int = 4,
) -> list[JoinPath]:
    """Shortest FK join paths between each pair of the first ``max_endpoints`` distinct tables,
    pairs in the order the tables are given; ``[]`` when no pair is connected."""
    adjacency = _fk_adjacency(graph_or_edges)
    ends = list(dict.fromkeys(tables))[:max_endpoints]
    pairs = [(a, b) for i, a in enumerate(ends) for b in ends[i + 1 :]]
    return [p for a, b in pairs for p in _pair_paths(adjacency, a, b, max_edges, max_paths)]


def relationships(graph_or_edges: SchemaGraph | Iterable[Edge], table: str) -> list[JoinPath]:
    """One-edge join paths from ``table`` to each FK neighbour, in both directions."""
    hops = _fk_adjacency(graph_or_edges).get(table, [])
    return [_make_path(table, [hop]) for hop in hops]


def select_skeleton(
    table: str, columns: Sequence[str], path: JoinPath | None = None, max_columns: int = 8
) -> str:
    """``SELECT table.a, table.b ... FROM table`` (or ``FROM`` + ``JOIN ... ON`` along ``path``,
    which must hold ``table``): the first ``max_columns`` columns, to paste and edit."""
    picked = [f"{table}.{c}" for c in columns[:max_columns]] or [f"{table}.*"]
    more = " -- ..." if len(columns) > max_columns else ""
    source = path.sql() if path is not None and table in path.tables else f"FROM {table}"
    return f"SELECT {', '.join(picked)}{more}\n" + source.replace(" JOIN ", "\nJOIN ")
