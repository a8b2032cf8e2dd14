"""Graph signals (spec 001 "Graph degree boost"): ranked lists over the current candidates.

Static signals are computed once per graph and cached (a new graph means a new instance, which
is how a rebuild invalidates them):

* ``degree``: in + out degree, normalised to [0, 1] — hubs rank higher;
* ``adamic_adar``: Σ 1 / log(degree(n)) over neighbours n — rare, specific neighbours count more;
* ``betweenness``: Brandes betweenness centrality (rustworkx) — bridges between domains;
* ``column_density``: how many members (columns, fields) a document has.

Query-time signals:

* ``proximity``: multi-source BFS from the top vector candidates; a candidate ``d`` hops away
  scores ``1 / (1 + d)``;
* ``reach``: GraphQL root fields ranked by where they lead: a reverse BFS from the best
  non-root candidates along ``returns`` / ``hasField`` / ``member`` edges credits every root
  field that reaches a candidate with ``score(candidate) / (1 + hops)``.

Each returns ``(id, score)`` pairs best first, over candidates only: a graph signal re-orders
what the text signals found, it never brings in an item on structure alone.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

import rustworkx as rx

from schemaseek.documents import DocKind, Document, Relation
from schemaseek.graph import SchemaGraph

STATIC_SIGNALS = ("degree", "adamic_adar", "betweenness", "column_density")
QUERY_SIGNALS = ("proximity", "reach")
_REACHING_KEPT = 8192  # nodes whose reaching root fields are kept
_FORWARD = frozenset({Relation.RETURNS, Relation.HAS_FIELD, Relation.MEMBER})


class GraphSignals:
    """Graph-derived ranking signals for one graph and document set."""

    def __init__(self, graph: SchemaGraph, documents: Mapping[str, Document]) -> None:
        self._graph = graph
        self._documents = documents
        self._static: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()
        self._has_root_fields: bool | None = None
        self._reaching: dict[tuple[int, int], list[tuple[str, int]]] = {}
        digraph = graph.digraph
        n = digraph.num_nodes() if hasattr(digraph, "num_nodes") else len(digraph)
        self._undirected: list[list[int]] = [[] for _ in range(n)]
        self._reverse: list[list[int]] = [[] for _ in range(n)]
        for source, target, edge in digraph.weighted_edge_list():
            self._undirected[source].append(target)
            self._undirected[target].append(source)
            if edge.relation in _FORWARD:
                self._reverse[target].append(source)

    @property
    def has_root_fields(self) -> bool:
        """Whether some GraphQL root field returns something (else ``reach`` has nothing to
        rank: a SQL-only index skips it). Found once, from the ``returns`` edges."""
        if self._has_root_fields is None:
            found = False
            for _, _, edge in self._graph.digraph.weighted_edge_list():
                if edge.relation is Relation.RETURNS:
                    doc = self._documents.get(edge.source)
                    if doc is not None and doc.kind is DocKind.GRAPHQL_ROOT_FIELD:
                        found = True
                        break
            self._has_root_fields = found
        return self._has_root_fields

    # -- static -------------------------------------------------------------------------------

    def static_scores(self, name: str) -> dict[str, float]:
        """Scores of a static signal for every node, computed on first use and cached."""
        with self._lock:
            if name not in self._static:
                self._static[name] = self._compute(name)
            return self._static[name]

    def _compute(self, name: str) -> dict[str, float]:
        graph = self._graph
        ids = [graph.id_of(i) for i in range(len(self._undirected))]
        if name == "degree":
            raw = {d: float(len(self._undirected[i])) for i, d in enumerate(ids)}
        elif name == "adamic_adar":
            raw = {
                d: sum(
                    1.0 / math.log(len(self._undirected[n]))
                    for n in set(self._undirected[i])
                    if len(self._undirected[n]) > 1
                )
                for i, d in enumerate(ids)
            }
        elif name == "betweenness":
            centrality = rx.digraph_betweenness_centrality(graph.digraph, normalized=True)
            raw = {graph.id_of(i): float(v) for i, v in centrality.items()}
        elif name == "column_density":
            raw = {
                d: float(doc.data.get("member_count", len(doc.members)))
                for d, doc in self._documents.items()
            }
        else:
            raise ValueError(f"unknown graph signal {name!r}; known: {STATIC_SIGNALS}")
        top = max(raw.values(), default=0.0)
        return {d: v / top for d, v in raw.items() if v > 0} if top > 0 else {}

    def rank_static(self, name: str, candidates: Iterable[str]) -> list[tuple[str, float]]:
        """Candidates with a non-zero static score, best first."""
        scores = self.static_scores(name)
        found = [(d, scores[d]) for d in set(candidates) if d in scores]
        return sorted(found, key=lambda item: (-item[1], item[0]))

    # -- query time ---------------------------------------------------------------------------

    def proximity(
        self, anchors: Sequence[str], candidates: Iterable[str], max_hops: int = 2
    ) -> list[tuple[str, float]]:
        """Candidates near the anchors (not the anchors themselves), nearer first."""
        graph = self._graph
        starts = [graph.index_of(a) for a in anchors if graph.has(a)]
        distance = self._bfs(starts, self._undirected, max_hops)
        anchor_set = set(starts)
        found = []
        for doc_id in set(candidates):
            if graph.has(doc_id):
                index = graph.index_of(doc_id)
                if index in distance and index not in anchor_set:
                    found.append((doc_id, 1.0 / (1.0 + distance[index])))
        return sorted(found, key=lambda item: (-item[1], item[0]))

    def reach(
        self, scored: Sequence[tuple[str, float]], max_hops: int = 3
    ) -> tuple[list[tuple[str, float]], dict[str, tuple[str, int]]]:
        """Root fields ranked by the candidates they lead to; also ``root → (target, hops)``.

        A root field's credit is the sum over the candidates it reaches within ``max_hops`` of
        ``score / (1 + hops)``, saturated as ``s / (1 + s)``: below 1 whatever the number of
        targets, so that with scores given as shares of the best candidate's (as the pipeline
        does) the list is on a fixed scale and fused as it is."""
        graph = self._graph
        totals: dict[str, float] = {}
        evidence: dict[str, tuple[str, int]] = {}
        for target, score in scored:
            doc = self._documents.get(target)
            if doc is None or doc.kind is DocKind.GRAPHQL_ROOT_FIELD or not graph.has(target):
                continue
            for root, hops in self._roots_reaching(graph.index_of(target), max_hops):
                credit = score / (1.0 + hops)
                totals[root] = totals.get(root, 0.0) + credit
                best = evidence.get(root)
                if best is None or hops < best[1]:
                    evidence[root] = (target, hops)
        # saturate: many weak targets never add up to more than one strong one can give
        totals = {root: total / (1.0 + total) for root, total in totals.items()}
        ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
        return ranked, evidence

    def _roots_reaching(self, target: int, max_hops: int) -> list[tuple[str, int]]:
        """``(root field, hops)`` of the root fields within ``max_hops`` of node ``target``
        along reversed forward edges; computed once per node and kept."""
        key = (target, max_hops)
        found = self._reaching.get(key)
        if found is None:
            found = []
            for index, hops in self._bfs([target], self._reverse, max_hops).items():
                root = self._graph.id_of(index)
                doc = self._documents.get(root)
                if doc is not None and doc.kind is DocKind.GRAPHQL_ROOT_FIELD:
                    found.append((root, hops))
            if len(self._reaching) >= _REACHING_KEPT:
                self._reaching.clear()
            self._reaching[key] = found
        return found

    @staticmethod
    def _bfs(starts: Iterable[int], adjacency: list[list[int]], max_hops: int) -> dict[int, int]:
        distance: dict[int, int] = {}
        queue: deque[int] = deque()
        for start in starts:
            if start not in distance:
                distance[start] = 0
                queue.append(start)
        while queue:
            node = queue.popleft()
            hops = distance[node]
            if hops >= max_hops:
                continue
            for other in adjacency[node]:
                if other not in distance:
                    distance[other] = hops + 1
                    queue.append(other)
        return distance
