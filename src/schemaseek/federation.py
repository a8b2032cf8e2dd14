"""One search over several indexes: the network service's engines and the MCP tools' catalog.

Every index fuses with the same settings (the same signals, the same fusion), so fused scores
share one scale and a merge by ``(score desc, source, id)`` is fair.
:func:`federated_search`

* checks the question once (:func:`schemaseek.query.pipeline.validate_search`); a wanted
  source no member knows raises :class:`~schemaseek.errors.UnknownSourceError`;
* asks every member whose sources are wanted (a member is anything with a ``name`` and an
  ``index``: a serving unit, or :class:`Served` around a bare index), all under one
  :class:`~schemaseek.query.shared.SharedQuery`: one deadline for the whole search, one query
  embedding per embedding model, and none at all when the question is an exact identifier in
  any member;
* merges their hits by :func:`hit_key` and cuts one page with :func:`schemaseek.query.fusion.top_k`;
  exact identifiers (pinned hits) of every member come first, closest spelling first, each
  once, on every page;
* hands out **one** ``query_id`` for the search and remembers it, with the question and the
  ids it ranked, in the caller's :class:`~schemaseek.recent.RecentQueries`.

**Pages.** With a :class:`Page` the cut starts after the keyset ``(score, key)`` of the last
result served, and each member is asked for as many results as the pages served so far plus
this one, and one more to know whether another page exists (never past ``max_depth``).
Without one, members are asked for ``limit`` and one answering member's ranking passes through
unchanged (its order and its ``query_id``): there is nothing to merge and no keyset to keep.

**Failures.** A member that fails, or is not reached before the deadline, is skipped and the
answer says ``degraded``; an invalid question raises
:class:`~schemaseek.query.pipeline.InvalidQueryError`; no member answering raises
:class:`NoEngineError` (:class:`~schemaseek.errors.DeadlineExceededError` when the deadline
passed first).

:func:`known_ids` and :func:`learn` serve usage reports the same way over the members.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from schemaseek.config import SearchSettings
from schemaseek.documents import Hit, SearchResponse
from schemaseek.errors import DeadlineExceededError, SchemaSeekError, UnknownSourceError
from schemaseek.query.filters import SearchFilter
from schemaseek.query.fusion import top_k
from schemaseek.query.pipeline import MODES, InvalidQueryError, pin_closeness, validate_search
from schemaseek.query.shared import Deadline, SharedQuery
from schemaseek.query.state import Mode
from schemaseek.recent import RecentQueries

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex
    from schemaseek.index.schema_index import Instrument

__all__ = [
    "Ask",
    "FederatedAnswer",
    "FederatedHit",
    "Member",
    "MemberQuestion",
    "NoEngineError",
    "Page",
    "Served",
    "ask_index",
    "federated_search",
    "hit_key",
    "known_ids",
    "learn",
    "serving",
]

logger = logging.getLogger(__name__)


class NoEngineError(SchemaSeekError):
    """No engine can serve the search (all initializing or failed)."""


class Member(Protocol):
    """One index taking part in a federated search (a serving unit fits)."""

    @property
    def name(self) -> str: ...

    @property
    def index(self) -> SchemaIndex | None:
        """The index to search, or None while nothing can be served."""
        ...


@dataclass(frozen=True, slots=True)
class Served:
    """A bare index as a :class:`Member`."""

    name: str
    index: SchemaIndex | None


def serving(indexes: Sequence[SchemaIndex | None]) -> list[Served]:
    """The built ones of ``indexes`` as members, each named after its sources."""
    return [
        Served(",".join(s.name for s in index.sources), index)
        for index in indexes
        if index is not None and index.built
    ]


@dataclass(frozen=True, slots=True)
class MemberQuestion:
    """What every member of one federated search is asked: the question, how many results
    (``depth``: enough for the page and a look past it), the mode, the filter, and what the
    members share (deadline, query vector)."""

    query: str
    depth: int
    mode: Mode
    search_filter: SearchFilter
    shared: SharedQuery

    def search(self, index: SchemaIndex, instrument: Instrument | None = None) -> SearchResponse:
        """:meth:`SchemaIndex.search` of this question (``instrument``: see there)."""
        return index.search(
            self.query, limit=self.depth, mode=self.mode, search_filter=self.search_filter,
            instrument=instrument, shared=self.shared,
        )  # fmt: skip


#: How one member is asked: ``(member name, index, question)`` → its answer.
#: :func:`ask_index` by default; the service wraps it in tracing spans.
Ask = Callable[[str, "SchemaIndex", MemberQuestion], SearchResponse]
#: pinned hits score this far above the best other hit of any member, plus a step per
#: closeness level (:func:`~schemaseek.query.pipeline.pin_closeness`) so closer spellings
#: lead; the keyset ``(score, key)`` of cursors then keeps them first on every page
PIN_MARGIN = 1.0
PIN_STEP = 1e-3


def ask_index(name: str, index: SchemaIndex, question: MemberQuestion) -> SearchResponse:
    """:meth:`SchemaIndex.search` for ``question.depth`` results."""
    return question.search(index)


@dataclass(frozen=True, slots=True)
class Page:
    """Where a page starts: ``served`` results were served before it, the last of them at the
    keyset ``after`` (``(score, hit_key)``); no page reaches past ``max_depth`` results."""

    max_depth: int
    served: int = 0
    after: tuple[float, str] | None = None


@dataclass(frozen=True, slots=True)
class FederatedHit:
    """A hit with the member that found it and its merge (and cursor) key."""

    member: str
    hit: Hit
    key: str


@dataclass(slots=True)
class FederatedAnswer:
    """One page of a federated search."""

    query: str
    query_id: str
    mode: str
    hits: list[FederatedHit]
    has_more: bool
    degraded: bool
    examples: list[dict[str, Any]] = field(default_factory=list)
    took_ms: float = 0.0

    def ids(self) -> list[str]:
        return [h.hit.id for h in self.hits]

    def response(self) -> SearchResponse:
        """The answer as one index's :class:`SearchResponse`."""
        return SearchResponse(
            query=self.query,
            mode=self.mode,
            hits=tuple(h.hit for h in self.hits),
            degraded=self.degraded,
            took_ms=self.took_ms,
            examples=tuple(self.examples),
            query_id=self.query_id,
        )


def hit_key(source: str, doc_id: str) -> str:
    """The merge and cursor key of a hit (ids are unique per source only). The separator
    sorts before every printable character, so keys sort like ``(source, id)``."""
    return f"{source}\x1f{doc_id}"


def federated_search(
    members: Sequence[Member],
    query: str,
    *,
    limit: int,
    mode: str = "hybrid",
    search_filter: SearchFilter | None = None,
    page: Page | None = None,
    settings: SearchSettings | None = None,
    ask: Ask = ask_index,
    recent: RecentQueries | None = None,
    deadline: Deadline | None = None,
    executor: Executor | None = None,
) -> FederatedAnswer:
    """Search every member serving a wanted source and merge (see the module docstring).

    ``settings`` bound the question (default: the first member's); ``recent`` remembers the
    answer's ``query_id``; ``deadline`` bounds the whole search (past it:
    :class:`~schemaseek.errors.DeadlineExceededError`), and ``executor`` runs the query
    embedding so that waiting for it ends at the deadline.
    """
    started = time.perf_counter()
    search_filter = search_filter or SearchFilter()
    asked = _wanted(members, search_filter.sources)
    if settings is None and not asked:
        raise NoEngineError("no engine can serve searches yet")
    bounds = settings or asked[0][1].settings
    query = validate_search(query, limit=limit, mode=mode, settings=bounds)
    chosen = next(m for m in MODES if m == mode)
    if not asked:
        raise NoEngineError("no engine can serve searches yet")
    cut = page or Page(max_depth=limit)
    depth = min(cut.served + limit + 1, cut.max_depth)
    pinned = any(index.pinned(query, search_filter) for _, index in asked)
    shared = SharedQuery(query, deadline=deadline, executor=executor, pinned=pinned)
    question = MemberQuestion(query, depth, chosen, search_filter, shared)
    answers, failed = _ask_all(asked, question, ask)
    if page is None and len(answers) == 1:
        answer = _pass_through(*answers[0], degraded=failed)
    else:
        answer = _merge(answers, query, limit, chosen, cut, depth, failed)
    answer.took_ms = (time.perf_counter() - started) * 1000.0
    if recent is not None:
        recent.remember(answer.query_id, answer.query, answer.ids())
    return answer


def _wanted(members: Sequence[Member], wanted: Sequence[str]) -> list[tuple[str, SchemaIndex]]:
    """The serving members holding a wanted source (all without any);
    :class:`UnknownSourceError` for a wanted source no member has."""
    serving = [(m.name, i) for m in members if (i := m.index) is not None]
    if not wanted:
        return serving
    names = {m.name for m in members} | {s.name for _, i in serving for s in i.sources}
    unknown = sorted(set(wanted) - names)
    if unknown:
        known = ", ".join(sorted(n for n in names if "," not in n)) or "none"
        raise UnknownSourceError(f"unknown sources {unknown}; sources served: {known}")
    return [(n, i) for n, i in serving if set(wanted) & {s.name for s in i.sources}]


def _ask_all(
    asked: Sequence[tuple[str, SchemaIndex]], question: MemberQuestion, ask: Ask
) -> tuple[list[tuple[str, SearchResponse]], bool]:
    """Every answering member's response, and whether one failed (or was not asked: the
    deadline had passed; :class:`DeadlineExceededError` when it passed before any answer)."""
    shared = question.shared
    answers: list[tuple[str, SearchResponse]] = []
    failed = False
    for name, index in asked:
        if answers and shared.deadline.expired:
            logger.warning("deadline passed: engine %r was not asked", name)
            failed = True
            continue
        shared.deadline.check()
        try:
            answers.append((name, ask(name, index, question)))
        except (InvalidQueryError, DeadlineExceededError):
            raise
        except Exception as exc:  # one broken engine never fails the search
            logger.warning("engine %r failed a search: %s", name, exc)
            failed = True
    if not answers:
        raise NoEngineError("no engine can serve searches yet")
    return answers, failed


def _pass_through(name: str, response: SearchResponse, *, degraded: bool) -> FederatedAnswer:
    return FederatedAnswer(
        query=response.query,
        query_id=response.query_id,
        mode=response.mode,
        hits=[FederatedHit(name, h, hit_key(h.document.source, h.id)) for h in response.hits],
        has_more=False,
        degraded=degraded or response.degraded,
        examples=[dict(e) for e in response.examples],
    )


def _merge(
    answers: Sequence[tuple[str, SearchResponse]],
    query: str,
    limit: int,
    mode: Mode,
    page: Page,
    depth: int,
    failed: bool,
) -> FederatedAnswer:
    """One page of the merged hits, by ``(score desc, key)`` after the page's keyset; pinned
    hits first (:data:`PIN_MARGIN`)."""
    scores: dict[str, float] = {}
    found: dict[str, FederatedHit] = {}
    examples: dict[str, dict[str, Any]] = {}
    degraded, more, effective = failed, False, str(mode)
    best = _best_unpinned(answers)
    for name, response in answers:
        degraded |= response.degraded
        effective = response.mode if response.mode != mode else effective
        more |= len(response.hits) >= depth and depth < page.max_depth
        for hit in response.hits:
            key = hit_key(hit.document.source, hit.id)
            if hit.explanation.pinned:
                closeness = pin_closeness(query, hit.id, hit.document.name)
                hit = dataclasses.replace(hit, score=best + PIN_MARGIN + PIN_STEP * (5 - closeness))
            scores[key] = hit.score
            found[key] = FederatedHit(name, hit, key)
        for example in response.examples:
            examples.setdefault(str(example.get("question", "")), dict(example))
    ranked = top_k(scores, limit + 1, after=page.after)
    hits = [found[key] for key, _ in ranked[:limit]]
    stop = page.served + len(hits) >= page.max_depth
    return FederatedAnswer(
        query=query,
        query_id=uuid.uuid4().hex,
        mode=effective,
        hits=hits,
        has_more=(len(ranked) > limit or more) and not stop and bool(hits),
        degraded=degraded,
        examples=list(examples.values()),
    )


def _best_unpinned(answers: Sequence[tuple[str, SearchResponse]]) -> float:
    """The best score of a hit not pinned, over every member (a member's pins score its best
    plus one, so that best is known even when its page held pins only)."""
    best = 0.0
    for _, response in answers:
        for hit in response.hits:
            best = max(best, hit.score - 1.0 if hit.explanation.pinned else hit.score)
    return best


# -- usage reports ----------------------------------------------------------------------------


def known_ids(members: Sequence[Member], ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """``ids`` (first occurrences, in order) split into those a member's index holds and the
    rest."""
    indexes = [i for m in members if (i := m.index) is not None]
    known: list[str] = []
    unknown: list[str] = []
    for doc_id in dict.fromkeys(ids):
        (known if any(i.get(doc_id) is not None for i in indexes) else unknown).append(doc_id)
    return known, unknown


def learn(members: Sequence[Member], question: str | None, ids: Sequence[str]) -> bool:
    """Teach every member's index that its ones of ``ids`` answered ``question``; True when
    one learned (False without a question)."""
    if not question:
        return False
    learned = False
    for member in members:
        index = member.index
        if index is None:
            continue
        mine = [i for i in ids if index.get(i) is not None]
        if mine:
            learned |= index.record_usage(mine, query=question)
    return learned
