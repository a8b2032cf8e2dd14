"""The relationship graph over document ids, used by augmentation, graph signals and join paths.

:class:`SchemaGraph` wraps a rustworkx ``PyDiGraph`` whose node payloads are document ids and
whose edge payloads are the source :class:`~schemaseek.documents.Edge` objects. Edges whose
endpoints are not known ids are skipped, and so are self-loops (a table referencing itself adds
nothing to neighbours or paths). Several edges between the same pair are kept (two foreign
keys from ``fx_rate`` to ``currency`` are two join options).
"""

from __future__ import annotations

from collections.abc import Iterable

import rustworkx as rx

from schemaseek.documents import Edge, Relation

__all__ = ["Neighbor", "SchemaGraph"]

Neighbor = tuple[str, Relation, str]
"""(neighbour id, relation, direction): ``"out"`` when the edge leaves the asked node."""


class SchemaGraph:
    """A directed multigraph over document ids, built once from ``(ids, edges)``."""

    def __init__(self, ids: Iterable[str], edges: Iterable[Edge]) -> None:
        self._graph: rx.PyDiGraph = rx.PyDiGraph(multigraph=True)
        self._index: dict[str, int] = {}
        for doc_id in ids:
            if doc_id not in self._index:
                self._index[doc_id] = self._graph.add_node(doc_id)
        self.skipped_edges = 0
        """Edges left out because an endpoint is unknown or both endpoints are the same."""
        for edge in edges:
            source = self._index.get(edge.source)
            target = self._index.get(edge.target)
            if source is None or target is None or source == target:
                self.skipped_edges += 1
                continue
            self._graph.add_edge(source, target, edge)

    @property
    def digraph(self) -> rx.PyDiGraph:
        """The underlying rustworkx graph (node payload: id; edge payload: :class:`Edge`)."""
        return self._graph

    @property
    def node_count(self) -> int:
        return len(self._index)

    @property
    def edge_count(self) -> int:
        return int(self._graph.num_edges())

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._index

    def has(self, doc_id: str) -> bool:
        """Whether ``doc_id`` is a node."""
        return doc_id in self._index

    def index_of(self, doc_id: str) -> int:
        """The rustworkx node index of ``doc_id`` (``KeyError`` when unknown)."""
        return self._index[doc_id]

    def id_of(self, index: int) -> str:
        """The document id stored at a rustworkx node index."""
        doc_id: str = self._graph[index]
        return doc_id

    def degree(self, doc_id: str) -> int:
        """In-degree plus out-degree (0 for an unknown id)."""
        index = self._index.get(doc_id)
        if index is None:
            return 0
        return int(self._graph.in_degree(index) + self._graph.out_degree(index))

    def neighbors(self, doc_id: str) -> list[Neighbor]:
        """1-hop neighbours in both directions, deduplicated and sorted; [] for an unknown id."""
        index = self._index.get(doc_id)
        if index is None:
            return []
        found: set[Neighbor] = set()
        for _, target, edge in self._graph.out_edges(index):
            found.add((self.id_of(target), edge.relation, "out"))
        for source, _, edge in self._graph.in_edges(index):
            found.add((self.id_of(source), edge.relation, "in"))
        return sorted(found, key=lambda n: (n[2] != "out", n[1], n[0]))

    def edges_between(self, a: str, b: str) -> list[Edge]:
        """Every edge joining ``a`` and ``b``, in either direction (join options)."""
        ia, ib = self._index.get(a), self._index.get(b)
        if ia is None or ib is None:
            return []
        out: list[Edge] = []
        for source, target in ((ia, ib), (ib, ia)):
            if self._graph.has_edge(source, target):
                out.extend(self._graph.get_all_edge_data(source, target))
        return out

    def shortest_path(self, a: str, b: str, max_edges: int) -> list[str] | None:
        """The ids along a shortest path from ``a`` to ``b`` ignoring direction.

        ``None`` when an id is unknown, no path exists or the path has more than ``max_edges``
        edges; ``[a]`` when ``a == b``.
        """
        ia, ib = self._index.get(a), self._index.get(b)
        if ia is None or ib is None or max_edges < 0:
            return None
        if ia == ib:
            return [a]
        paths = rx.digraph_dijkstra_shortest_paths(
            self._graph, ia, target=ib, default_weight=1.0, as_undirected=True
        )
        if ib not in paths:
            return None
        nodes = list(paths[ib])
        if len(nodes) - 1 > max_edges:
            return None
        return [self.id_of(n) for n in nodes]
