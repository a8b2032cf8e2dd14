"""The MCP tools as plain Python over a :class:`~schemaseek.mcp.served.ServedIndexes` (one
:class:`~schemaseek.index.SchemaIndex`, or a service's engines).

:class:`SchemaTools` holds the logic; :mod:`schemaseek.mcp.server` only exposes it over MCP. Every
answer is a JSON-ready dict. Invalid arguments raise :class:`ToolInputError` (a ``ValueError``),
which the server turns into an MCP tool error with the message.

**Ordering for agents.** ``search_schema`` keeps the engine's ranking with one change: a GraphQL
type or field can only be fetched through a root field, so each root field in the results moves
up to the best score among the hits whose root path starts at it, and ties put the root field
first. The entry point that leads to the best evidence is therefore listed before that evidence
(``Query.abacusContract`` before ``AbacusRoyaltyPayment`` for "royalty payments for Sony"). SQL
tables, which are queried directly, keep their own scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from schemaseek.documents import GRAPHQL_KINDS, DocKind, Document, Hit, SearchResponse
from schemaseek.feedback import FeedbackStore
from schemaseek.mcp.budget import TokenCounter, allocate
from schemaseek.mcp.confidence import assess
from schemaseek.mcp.render import describe_text, hit_card
from schemaseek.mcp.served import ServedIndexes
from schemaseek.paths.graphql import RootPath, root_path, selection_skeleton
from schemaseek.paths.joins import JoinPath, join_paths
from schemaseek.recent import RECENT_QUERIES, RecentQueries

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

DEFAULT_BUDGET = 2000
MIN_BUDGET = 300
MAX_DESCRIBE = 20
MAX_REPORTED = 200  # ids per report_usage call (the service's max_ids default)
_EXAMPLE_SHARE = 0.25  # curated examples may use up to this share of the budget
_JOIN_SHARE = 0.15  # join paths among the result's tables, up to this share
_MESSAGES = {
    "strong": None,
    "weak": "Weak match: treat these as candidates and check them with describe before use.",
    "none": "No schema item matches this question with confidence; nothing is presented as an "
    "answer. Rephrase with business terms, or try coverage_search with 2-3 short phrases.",
}


class ToolInputError(ValueError):
    """An argument an agent passed is not acceptable; the message says why."""


class SchemaTools:
    """search_schema, describe, join_path, graphql_selection, coverage_search, report_usage."""

    def __init__(
        self,
        served: ServedIndexes | SchemaIndex,
        feedback: FeedbackStore | None = None,
        counter: TokenCounter | None = None,
        recent: int = RECENT_QUERIES,
    ) -> None:
        """Searches are remembered in ``feedback.recent`` (a fresh store of ``recent``
        searches without ``feedback``), where reports and selections find them."""
        self.served = served if isinstance(served, ServedIndexes) else ServedIndexes.of(served)
        self.feedback = feedback or FeedbackStore(None, recent=RecentQueries(recent))
        self.counter = counter or TokenCounter()

    # -- search_schema ----------------------------------------------------------------------

    def search(
        self, question: str, sources: Sequence[str], kinds: Sequence[str], limit: int
    ) -> SearchResponse:
        """One engine search, remembered by query id for feedback and selections."""
        if not self.served.current():
            raise ToolInputError("the schema index is still being built; try again shortly")
        known = self.served.source_names()
        if unknown := [s for s in sources if s not in known]:
            raise ToolInputError(f"unknown sources {unknown}; this index has {known}")
        try:
            return self.served.search(
                question, limit=limit, sources=sources, kinds=kinds, recent=self.feedback.recent
            )
        except ValueError as exc:
            raise ToolInputError(str(exc)) from exc

    def root_paths(self, hits: Sequence[Hit]) -> dict[str, RootPath]:
        """Root paths of the GraphQL hits, ties broken towards items ranked in ``hits``."""
        prefer = [h.id for h in hits]
        paths = {}
        for hit in hits:
            index = self.served.index_of(hit)
            if index is not None and hit.document.kind in GRAPHQL_KINDS:
                path = root_path(index, hit.id, prefer=prefer)
                if path is not None:
                    paths[hit.id] = path
        return paths

    def join_paths(self, hits: Sequence[Hit]) -> list[JoinPath]:
        """FK join paths among the SQL tables of ``hits``, within each index (paths never
        cross sources)."""
        by_index: dict[int, tuple[SchemaIndex, list[str]]] = {}
        for hit in hits:
            index = self.served.index_of(hit)
            if index is not None and hit.document.kind is DocKind.SQL_TABLE:
                by_index.setdefault(id(index), (index, []))[1].append(hit.id)
        return [p for index, tables in by_index.values() for p in join_paths(index.graph, tables)]

    def search_schema(
        self,
        question: str,
        sources: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 10,
        token_budget: int = DEFAULT_BUDGET,
    ) -> dict[str, Any]:
        """Ranked hits sized to ``token_budget`` tokens (see the module and tokens docs)."""
        if token_budget < MIN_BUDGET:
            raise ToolInputError(f"token_budget must be at least {MIN_BUDGET}")
        response = self.search(question, sources, kinds, limit)
        confidence = assess(response)
        paths = self.root_paths(response.hits)
        hits = entry_order(response.hits, paths)
        head: dict[str, Any] = {"query": response.query, "query_id": response.query_id}
        head |= {"match": confidence.match, "evidence": confidence.to_dict()}
        if response.degraded:
            building = self.served.building()
            head["degraded"] = (
                f"vectors are still being built ({building}): keyword and glossary signals "
                "only until then"
                if building
                else "vectors unavailable: keyword and glossary signals only"
            )
        if confidence.match == "none":
            closest = [h.id for h in hits[:3]]
            answer = head | {"message": _MESSAGES["none"], "closest_not_answers": closest}
            return self._trim(answer, token_budget)
        if _MESSAGES[confidence.match]:
            head["message"] = _MESSAGES[confidence.match]
        head |= {"truncated": 0, "omitted": 0, "results": []}
        owned = [(h, i) for h in hits if (i := self.served.index_of(h)) is not None]
        hits = [h for h, _ in owned]
        joins = [j.to_dict() for j in self.join_paths(hits)]
        budget = token_budget - self.counter.count_json(head) - 8
        examples, skipped_examples = self._whole(
            list(response.examples), token_budget * _EXAMPLE_SHARE
        )
        joins, skipped_joins = self._whole(joins, token_budget * _JOIN_SHARE)
        budget -= self.counter.count_json(examples) + self.counter.count_json(joins) + 20
        variants = [
            [hit_card(index, h, d, paths.get(h.id)) for d in (3, 2, 1, 0)] for h, index in owned
        ]
        costs = [[self.counter.count_json(v) + 1 for v in item] for item in variants]
        allocation = allocate(costs, max(0, budget))
        chosen = list(allocation.chosen)
        while True:
            results = [variants[i][c] for i, c in enumerate(chosen) if c is not None]
            answer = head | {"results": results}
            answer["truncated"] = sum(1 for c in chosen if c)
            answer["omitted"] = chosen.count(None) + skipped_examples + skipped_joins
            answer |= {"join_paths": joins} if joins else {}
            answer |= {"examples": examples} if examples else {}
            if self.counter.count_json(answer) <= token_budget:
                return answer
            if not results:
                return self._trim(answer, token_budget)
            chosen = _shrink(chosen)

    def _trim(self, answer: dict[str, Any], budget: int) -> dict[str, Any]:
        """Drop optional parts (examples, joins, evidence, the echoed question) until it fits."""
        for key in ("examples", "join_paths", "closest_not_answers", "evidence", "query"):
            if self.counter.count_json(answer) <= budget:
                break
            answer.pop(key, None)
        return answer

    def _whole(self, items: list[dict[str, Any]], limit: float) -> tuple[list[dict[str, Any]], int]:
        """The leading items whose JSON fits within ``limit`` tokens, and how many did not."""
        kept: list[dict[str, Any]] = []
        for item in items:
            if self.counter.count_json([*kept, item]) > limit:
                break
            kept.append(item)
        return kept, len(items) - len(kept)

    # -- describe, join_path, graphql_selection ---------------------------------------------

    def describe(self, ids: Sequence[str], depth: int = 1) -> dict[str, Any]:
        """Full detail of up to 20 ids: trimmed SDL, a field signature or a table's DDL."""
        ids = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
        if not ids or len(ids) > MAX_DESCRIBE:
            raise ToolInputError(f"give between 1 and {MAX_DESCRIBE} ids")
        items: list[dict[str, Any]] = []
        unknown: list[str] = []
        for doc_id in ids:
            found = self.served.find(doc_id)
            if not found:
                unknown.append(doc_id)
            items.extend(
                {"id": doc.id, "kind": doc.kind.value, "source": doc.source}
                | {"text": describe_text(index, doc, depth)}
                for index, doc in found
            )
        out: dict[str, Any] = {"items": items}
        if unknown:
            out["unknown"] = unknown
            out["hint"] = "ids are exact: copy them from search_schema results"
        return out

    def join_path(self, tables: Sequence[str]) -> dict[str, Any]:
        """Real FK join paths (with ON clauses) among 2-4 tables; says so when there is none."""
        tables = list(dict.fromkeys(t.strip() for t in tables if t.strip()))
        if not 2 <= len(tables) <= 4:
            raise ToolInputError("give 2 to 4 distinct table ids")
        paths = join_paths(self._table_index(tables).graph, tables)
        out: dict[str, Any] = {
            "tables": tables,
            "paths": [p.to_dict() | {"sql": p.sql()} for p in paths],
        }
        linked = {frozenset((p.tables[0], p.tables[-1])) for p in paths}
        missing = [
            f"{a} ↔ {b}"
            for i, a in enumerate(tables)
            for b in tables[i + 1 :]
            if frozenset((a, b)) not in linked
        ]
        if missing:
            out["no_path"] = missing
            out["message"] = (
                "No foreign-key path of at most 3 joins connects: " + "; ".join(missing) + ". "
                "Do not join these tables on guessed columns."
            )
        return out

    def _table_index(self, tables: Sequence[str]) -> SchemaIndex:
        """The one index holding every table of ``tables`` as a SQL table."""
        indexes = self.served.current()
        for index in indexes:
            if all(_is_table(index.get(t)) for t in tables):
                return index
        bad = [t for t in tables if not any(_is_table(i.get(t)) for i in indexes)]
        if bad:
            raise ToolInputError(f"not SQL table ids of this index: {', '.join(bad)}")
        raise ToolInputError(
            "these tables belong to different sources; foreign keys never cross sources"
        )

    def graphql_selection(self, doc_id: str, query_id: str | None = None) -> dict[str, Any]:
        """A validated query skeleton from a root field down to a GraphQL type or field."""
        prefer = list(self.feedback.recent.ranking(query_id or "") or ())
        doc_id = doc_id.strip()
        found = [i for i, d in self.served.find(doc_id) if d.kind in GRAPHQL_KINDS]
        index = found[0] if found else next(iter(self.served.current()), None)
        if index is None:
            raise ToolInputError("no schema is being served yet")
        return selection_skeleton(index, doc_id, prefer=prefer).to_dict()

    # -- report_usage -----------------------------------------------------------------------

    def report_usage(self, query_id: str, ids: Sequence[str]) -> dict[str, Any]:
        """Record which ids of a search were used; unknown ids are reported, not stored."""
        if len(ids) > MAX_REPORTED:
            raise ToolInputError(f"give at most {MAX_REPORTED} ids")
        known, unknown = self.served.known(ids)
        if not query_id.strip() or not known:
            raise ToolInputError("give the query_id of a search and at least one id from the index")
        event = self.feedback.record(query_id.strip(), known)
        out: dict[str, Any] = {"recorded": len(event.selected_ids), "query_id": event.query_id}
        out["query_known"] = event.query is not None
        out["learned"] = self.served.learn(event.query, event.selected_ids)
        return out | ({"unknown": unknown} if unknown else {})


def entry_order(hits: Sequence[Hit], paths: dict[str, RootPath]) -> list[Hit]:
    """Hits with each root field lifted to the best score of the hits it leads to (module doc)."""
    score = {h.id: h.score for h in hits}
    for hit in hits:
        path = paths.get(hit.id)
        if path is not None and path.steps[0].field in score:
            root = path.steps[0].field
            score[root] = max(score[root], hit.score)
    order = sorted(
        range(len(hits)),
        key=lambda i: (
            -score[hits[i].id],
            hits[i].document.kind is not DocKind.GRAPHQL_ROOT_FIELD,
            i,
        ),
    )
    return [hits[i] for i in order]


def _is_table(doc: Document | None) -> bool:
    return doc is not None and doc.kind is DocKind.SQL_TABLE


def _shrink(chosen: list[int | None]) -> list[int | None]:
    """One step less detail: the lowest-ranked item that can lose detail does, else it goes."""
    out = list(chosen)
    for i in range(len(out) - 1, -1, -1):
        if out[i] is not None and out[i] != 3:
            out[i] = (out[i] or 0) + 1
            return out
    last = max(i for i, c in enumerate(out) if c is not None)
    out[last] = None
    return out
