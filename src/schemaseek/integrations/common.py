"""What the framework retrievers share: a searcher over an index or the service, and one item
shape (:class:`RetrievedItem`) that each framework wraps in its own document type.

:class:`IndexSearcher` asks an in-process :class:`~schemaseek.index.SchemaIndex`;
:class:`ClientSearcher` asks the network service through
:class:`~schemaseek.client.SchemaSeekClient` (explanations on). Both give the same metadata:
``id``, ``kind``, ``source``, ``score``, ``query_id`` (for ``report_usage``), ``explanation``
(fused score, per-signal rank and score, glossary terms), ``why`` (the explanation in words),
``related`` ids and, for GraphQL items, the root ``path`` and its ``required_args``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from schemaseek.query.state import Mode

if TYPE_CHECKING:
    from schemaseek.client import SchemaSeekClient
    from schemaseek.index import SchemaIndex

__all__ = [
    "ClientSearcher",
    "IndexSearcher",
    "RetrievedItem",
    "SearchOptions",
    "Searcher",
    "searcher",
    "why_text",
]

_GRAPHQL = ("graphql_root_field", "graphql_type", "graphql_field")
MAX_MEMBERS = 12


@dataclass(frozen=True, slots=True)
class RetrievedItem:
    """One search result as a framework document: ``text`` for the model, ``metadata``."""

    id: str
    score: float
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


class Searcher(Protocol):
    """Anything that answers a question with :class:`RetrievedItem` rows, best first."""

    def retrieve(self, query: str) -> list[RetrievedItem]: ...


def why_text(explanation: dict[str, Any]) -> str:
    """``"glossary: royalty payments; vector #1 0.52; keyword #3"`` from an explanation dict."""
    if explanation.get("pinned"):
        return "exact identifier"
    parts = []
    if explanation.get("glossary"):
        parts.append("glossary: " + ", ".join(explanation["glossary"]))
    for name, signal in explanation.get("signals", {}).items():
        score = f" {signal['score']:.2f}" if name == "vector" else ""
        parts.append(f"{name} #{signal['rank']}{score}")
    if explanation.get("prefer"):
        parts.append(f"use {explanation['prefer']} instead")
    return "; ".join(parts)


def _item(
    *,
    doc_id: str,
    kind: str,
    source: str,
    score: float,
    description: str,
    members: Sequence[str],
    explanation: dict[str, Any],
    extra: dict[str, Any],
) -> RetrievedItem:
    reason = why_text(explanation)
    lines = [f"{doc_id} ({kind.replace('_', ' ')} in {source})"]
    lines += [description] if description else []
    if extra.get("path"):
        lines.append(f"path: {extra['path']}")
    if members:
        shown = ", ".join(members[:MAX_MEMBERS]) + (" ..." if len(members) > MAX_MEMBERS else "")
        lines.append(f"fields: {shown}")
    lines += [f"why: {reason}"] if reason else []
    metadata = {
        "id": doc_id,
        "kind": kind,
        "source": source,
        "score": score,
        "explanation": explanation,
        "why": reason,
    } | extra
    return RetrievedItem(doc_id, score, "\n".join(lines), metadata)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """What each retrieval asks for: how many results, which kinds and sources, which mode."""

    limit: int = 5
    kinds: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    mode: Mode = "hybrid"


class IndexSearcher:
    """Searches a built :class:`~schemaseek.index.SchemaIndex` in this process."""

    def __init__(self, index: SchemaIndex, options: SearchOptions) -> None:
        self.index = index
        self.options = options

    def retrieve(self, query: str) -> list[RetrievedItem]:
        from schemaseek.paths.graphql import root_path

        opts = self.options
        response = self.index.search(
            query, limit=opts.limit, mode=opts.mode, kinds=opts.kinds, sources=opts.sources
        )
        order = response.ids()
        out = []
        for hit in response.hits:
            doc = hit.document
            extra: dict[str, Any] = {
                "query_id": response.query_id,
                "related": [r.id for r in hit.related],
            }
            if doc.kind.value in _GRAPHQL:
                path = root_path(self.index, doc.id, prefer=order)
                if path is not None:
                    args = [f"{s.field}: {n}: {t}" for s in path.steps for n, t in s.args]
                    extra |= {"path": path.text(), "required_args": args}
            out.append(
                _item(
                    doc_id=doc.id,
                    kind=doc.kind.value,
                    source=doc.source,
                    score=hit.score,
                    description=doc.description,
                    members=doc.members,
                    explanation=hit.explanation.to_dict(),
                    extra=extra,
                )
            )
        return out


class ClientSearcher:
    """Searches the network service through a :class:`~schemaseek.client.SchemaSeekClient`."""

    def __init__(self, client: SchemaSeekClient, options: SearchOptions) -> None:
        self.client = client
        self.options = options

    def retrieve(self, query: str) -> list[RetrievedItem]:
        opts = self.options
        response = self.client.search(
            query,
            limit=opts.limit,
            kinds=opts.kinds,
            sources=opts.sources,
            mode=opts.mode,
            explain=True,
        )  # fmt: skip
        joins: dict[str, list[str]] = {}
        for join in response.join_paths:
            for table in join.tables:
                joins.setdefault(table, []).append(join.sql)
        out = []
        for result in response.results:
            value = result.explanation
            explanation: dict[str, Any] = {}
            if value is not None:
                explanation = {
                    "fused_score": value.fused_score,
                    "signals": {
                        name: {"rank": s.rank, "score": s.score}
                        for name, s in value.signals.items()
                    },
                }
                optional = {
                    "pinned": value.pinned, "glossary": list(value.glossary_terms),
                    "prefer": value.prefer, "reranked": value.reranked, "notes": list(value.notes),
                }  # fmt: skip
                explanation |= {k: v for k, v in optional.items() if v}
            extra: dict[str, Any] = {
                "query_id": response.query_id,
                "related": [r.id for r in result.related],
            }
            if result.path:
                extra |= {"path": result.path, "required_args": list(result.required_args)}
            if result.id in joins:
                extra["join_paths"] = joins[result.id]
            out.append(
                _item(
                    doc_id=result.id,
                    kind=result.kind,
                    source=result.source,
                    score=result.score,
                    description=result.description,
                    members=(),
                    explanation=explanation,
                    extra=extra,
                )
            )
        return out


def searcher(
    target: SchemaIndex | SchemaSeekClient,
    *,
    limit: int = 5,
    kinds: Sequence[str] = (),
    sources: Sequence[str] = (),
    mode: Mode = "hybrid",
) -> Searcher:
    """An :class:`IndexSearcher` for an index, a :class:`ClientSearcher` for a client."""
    from schemaseek.index import SchemaIndex

    options = SearchOptions(limit, tuple(kinds), tuple(sources), mode)
    if isinstance(target, SchemaIndex):
        return IndexSearcher(target, options)
    return ClientSearcher(target, options)
