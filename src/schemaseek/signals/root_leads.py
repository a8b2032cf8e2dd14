"""Which GraphQL root fields lead to a type, and in how many field hops.

An agent reaches data through a root field: a question about pull requests is answered by
``Query.repository`` (→ ``Repository.pullRequests`` → ``PullRequest``) as much as by a root
field returning ``PullRequest`` itself. :class:`RootLeads` answers, for a type, the root fields
whose results contain it within ``max_hops`` field steps:

* a root field returning the type is 1 hop away, one returning a type with a field of that
  type 2 hops, and so on;
* connection and edge wrappers (``role == "wrapper"``) cost nothing: an edge into a wrapper
  lands on the type it pages over;
* a union reaches its members and an interface its implementations at the same cost as the
  union or interface itself.

The reverse adjacency is built on first use from the graph's edges and the type documents'
roles; each type's answer is computed once and kept (a new index state means a new instance).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence

from schemaseek.documents import DocKind, Document, Relation
from schemaseek.graph import SchemaGraph

__all__ = ["RootLead", "RootLeads"]

_IDENTIFIER = re.compile(
    r"^(ids?|.*Ids?|.*IDs?|.*_ids?|slug|key|handle|uuid|iid|number|fullPath|login)$"
)

_VIEWER = re.compile(
    r"^(me|viewer|currentUser|current_user|loggedInUser|loggedInAccount|logged_in_user|myself"
    r"|whoami|self)$"
)
"""Names the common GraphQL conventions give the root field that returns the asker (Relay's
``viewer``, Apollo's ``me``, ``currentUser``)."""

RootLead = tuple[float, str, int]
"""(evidence, the type it leads to, hops)."""


class RootLeads:
    """Root fields by the types they lead to (see the module docstring)."""

    def __init__(self, graph: SchemaGraph, documents: Mapping[str, Document]) -> None:
        self._graph = graph
        self._documents = documents
        self._lock = threading.Lock()
        self._parents: dict[str, set[str]] | None = None
        self._roots_of: dict[str, set[str]] = {}
        self._leads: dict[tuple[str, int], list[tuple[str, int]]] = {}
        self._narrowing: dict[str, int] = {}
        self._viewers: list[str] | None = None

    def _wrapped(self, type_id: str, wrappers: Mapping[str, str]) -> str:
        for _ in range(4):  # connection → edge → node
            if type_id not in wrappers:
                break
            type_id = wrappers[type_id]
        return type_id

    def _build(self) -> dict[str, set[str]]:
        wrappers: dict[str, str] = {}
        for doc_id in self._graph_ids():
            doc = self._documents.get(doc_id)
            if doc is not None and doc.kind is DocKind.GRAPHQL_TYPE:
                wraps = doc.data.get("wraps")
                if doc.data.get("role") == "wrapper" and wraps:
                    wrappers[doc_id] = str(wraps)
        parents: dict[str, set[str]] = {}
        for _, _, edge in self._graph.digraph.weighted_edge_list():
            relation = edge.relation
            if relation is Relation.HAS_FIELD or relation is Relation.UNION_MEMBER:
                if edge.source in wrappers:
                    continue  # a wrapper's own fields are folded into its node type
                child = self._wrapped(edge.target, wrappers)
                if child != edge.source:
                    parents.setdefault(child, set()).add(edge.source)
            elif relation is Relation.IMPLEMENTS:  # a field of the interface reaches the object
                parents.setdefault(edge.source, set()).add(edge.target)
            elif relation is Relation.RETURNS:
                doc = self._documents.get(edge.source)
                if doc is not None and doc.kind is DocKind.GRAPHQL_ROOT_FIELD:
                    target = self._wrapped(edge.target, wrappers)
                    self._roots_of.setdefault(target, set()).add(edge.source)
        return parents

    def _graph_ids(self) -> Sequence[str]:
        return [self._graph.id_of(i) for i in self._graph.digraph.node_indices()]

    def leads(self, type_id: str, max_hops: int = 3) -> list[tuple[str, int]]:
        """``(root field, hops)`` for every root field reaching ``type_id`` within
        ``max_hops``, nearest first (ties by id)."""
        key = (type_id, max_hops)
        with self._lock:
            if self._parents is None:
                self._parents = self._build()
            found = self._leads.get(key)
            if found is not None:
                return found
            parents = self._parents
            best: dict[str, int] = {}
            frontier, seen = {type_id}, {type_id}
            for hops in range(1, max_hops + 1):
                for node in frontier:
                    for root in self._roots_of.get(node, ()):
                        best.setdefault(root, hops)
                if hops == max_hops:
                    break
                frontier = {p for n in frontier for p in parents.get(n, ()) if p not in seen}
                seen |= frontier
            found = sorted(best.items(), key=lambda item: (item[1], item[0]))
            self._leads[key] = found
            return found

    def best(
        self,
        targets: Sequence[tuple[str, float]],
        *,
        decay: float,
        max_hops: int = 3,
        narrowing: float = 1.0,
        closer: Mapping[str, int] | None = None,
    ) -> dict[str, RootLead]:
        """Per root field, its best lead among ``targets`` (``(type, score)``):
        ``score × decay ** (hops - 1) × narrowing ** (its narrowing arguments)``, with the
        type and the hops; a root field in ``closer`` counts that many hops fewer (never
        below one)."""
        out: dict[str, RootLead] = {}
        for type_id, score in targets:
            for root, hops in self.leads(type_id, max_hops):
                if closer and root in closer:
                    hops = max(1, hops - closer[root])
                evidence = score * decay ** (hops - 1)
                if narrowing < 1:
                    evidence *= narrowing ** self.narrowing_arguments(root)
                if root not in out or evidence > out[root][0]:
                    out[root] = (evidence, type_id, hops)
        return out

    def viewer_roots(self) -> list[str]:
        """Query root fields that return the asker: named as GraphQL conventions name them
        (``me``, ``viewer``, ``currentUser``, ...) and taking no required argument."""
        with self._lock:
            if self._viewers is None:
                self._viewers = sorted(
                    doc.id
                    for doc in self._documents.values()
                    if doc.kind is DocKind.GRAPHQL_ROOT_FIELD
                    and (doc.data.get("operation") or "query") == "query"
                    and _VIEWER.match(doc.id.rsplit(".", 1)[-1])
                    and not any(a.get("required") for a in doc.data.get("args") or ())
                )
            return self._viewers

    def narrowing_arguments(self, root: str) -> int:
        """Required arguments of a root field that are not identifiers: values an agent must
        already have in hand (a branch name, a file key), which make the field a special
        case (counted once per root field and kept)."""
        found = self._narrowing.get(root)
        if found is None:
            doc = self._documents.get(root)
            args = doc.data.get("args") or () if doc is not None else ()
            found = sum(
                1 for a in args if a.get("required") and not _IDENTIFIER.match(str(a.get("name")))
            )
            self._narrowing[root] = found
        return found
