"""The search pipeline: pin → signals → fuse → filter → rerank → augment → explain.

Each stage that can fail on its own (query embedding, reranking, augmentation) degrades to a
pass-through and never fails the search. Exact identifiers are pinned first, appear once,
and skip the query embedding entirely (in every index a :class:`SharedQuery` is shared by).
"""

from __future__ import annotations

import logging
import time
import uuid

from schemaseek.config import SearchSettings
from schemaseek.documents import SQL_KINDS, DocKind, SearchResponse
from schemaseek.errors import SchemaSeekError
from schemaseek.query.adjustments import expand_columns, favour_leading_source, propagate_joins
from schemaseek.query.coverage import weigh_by_coverage
from schemaseek.query.dense import adapter_of, dense_entries
from schemaseek.query.explain import augment, explain
from schemaseek.query.filters import SearchFilter
from schemaseek.query.fusion import NamedSignal, reciprocal_rank_fusion, top_k, weighted_sum
from schemaseek.query.graphql_priors import apply_graphql_priors
from schemaseek.query.intent import question_cues
from schemaseek.query.rerank import rerank_stage
from schemaseek.query.shared import SharedQuery
from schemaseek.query.state import IndexParts, Mode, SearchRun
from schemaseek.signals.coordination import coordinate
from schemaseek.signals.graph import QUERY_SIGNALS, STATIC_SIGNALS
from schemaseek.text import normalize_identifier, tokenize

logger = logging.getLogger(__name__)

MODES: tuple[Mode, ...] = ("hybrid", "keyword", "vector")


class InvalidQueryError(SchemaSeekError, ValueError):
    """The question or a search option is not acceptable (empty, too long, bad limit, mode)."""


def validate_search(query: str, *, limit: int, mode: str, settings: SearchSettings) -> str:
    """The one input check of a search (library, CLI, service and MCP alike): returns the
    stripped question, or raises :class:`InvalidQueryError` naming the limit broken."""
    query = query.strip()
    if not query:
        raise InvalidQueryError("the question is empty")
    if len(query) > settings.max_query_length:
        raise InvalidQueryError(
            f"the question is {len(query)} characters; the limit (MAX_QUERY_LENGTH) is "
            f"{settings.max_query_length}"
        )
    if not 1 <= limit <= settings.max_search_limit:
        raise InvalidQueryError(
            f"limit must be between 1 and {settings.max_search_limit} (MAX_SEARCH_LIMIT)"
        )
    if mode not in MODES:
        raise InvalidQueryError(f"mode must be one of {', '.join(MODES)}")
    return query


def search(
    parts: IndexParts,
    query: str,
    *,
    limit: int = 10,
    mode: Mode = "hybrid",
    search_filter: SearchFilter | None = None,
    shared: SharedQuery | None = None,
) -> SearchResponse:
    """Run one search. Raises :class:`InvalidQueryError` for unacceptable input only.
    ``shared`` is what the indexes of one federated search share (deadline, query vector)."""
    started = time.perf_counter()
    settings = parts.settings
    query = validate_search(query, limit=limit, mode=mode, settings=settings)
    run = SearchRun(query, mode, limit, search_filter or SearchFilter())
    # signals list at least `window` candidates, and score fusion normalises over the best
    # `window` of each: the same for every page of one search, whatever its limit
    run.window = settings.min_candidates * (4 if run.filter.active else 1)
    depth = max(limit * settings.over_fetch * (4 if run.filter.active else 1), run.window)

    pinned = _pinned(parts, run)
    _lexical_signals(parts, run, depth)
    if not pinned and not (shared is not None and shared.pinned):
        _vector_signal(parts, run, depth, shared)
        _bridge_signal(parts, run, depth, shared)
    weigh_by_coverage(parts, run)
    _graph_signals(parts, run)
    raw = _fuse(parts, run)
    fused = _collapse_to_cards(parts, raw)
    if parts.graph_signals is not None and parts.graph_signals.has_root_fields:
        fused = apply_graphql_priors(
            parts.documents, fused, question_cues(run.query), settings,
            leads=parts.root_leads, notes=run.notes,
        )  # fmt: skip
    if DocKind.SQL_COLUMN in run.filter.kinds:
        columns, run.extra_docs = expand_columns(parts.documents, raw, run.query)
        fused.update(columns)
        for column in run.extra_docs.values():
            run.notes[column.id] = f"column of {column.target} ({column.data['facet']} facet)"

    head = _head(parts, run, fused, pinned, limit * settings.over_fetch)
    voted = {d for s in run.signals if s.name == "feedback" for d, _ in s.entries}
    small = len(parts.documents) <= settings.rerank_max_documents
    # a model reranker stays out of keyword mode: that mode runs no model at all
    reranker = parts.reranker if small and run.mode != "keyword" else None
    ranked, run.reranked = rerank_stage(reranker, run.query, parts.documents, head, voted)
    ranked = propagate_joins(
        parts.graph, parts.documents, run.filter, run.notes, ranked,
        weight=settings.join_boost, anchors=settings.join_anchors,
        referencing_share=settings.join_referencing_share,
    )  # fmt: skip
    ranked = favour_leading_source(
        parts.documents, ranked, weight=settings.source_cohesion,
        window=settings.source_cohesion_window,
    )  # fmt: skip
    # the stages after the filter may bring a pinned table back (joins): it is listed once,
    # pinned, above everything whatever the order the stages left
    held = set(pinned)
    ranked = [(d, score) for d, score in ranked if d not in held]
    top_score = max((score for _, score in ranked), default=0.0)
    final = [(d, top_score + 1.0) for d in pinned] + ranked
    final = final[:limit]
    hits = explain(parts, run, final, set(pinned))
    hits = augment(parts, run, hits)
    examples = parts.matcher.examples(run.matches) if parts.matcher else []
    return SearchResponse(
        query=query,
        mode=mode,
        hits=tuple(hits),
        degraded=run.degraded,
        took_ms=(time.perf_counter() - started) * 1000.0,
        examples=tuple(examples),
        query_id=uuid.uuid4().hex,
    )


def _head(
    parts: IndexParts, run: SearchRun, fused: dict[str, float], pinned: list[str], size: int
) -> list[tuple[str, float]]:
    """The best ``size`` fused candidates the filter allows (pinned ids left out), best first;
    candidates are checked in order and only until the head is full."""
    head: list[tuple[str, float]] = []
    skip = set(pinned)
    for doc_id, score in sorted(fused.items(), key=lambda item: (-item[1], item[0])):
        if doc_id not in skip and run.filter.allows(run.document(parts, doc_id)):
            head.append((doc_id, score))
            if len(head) >= size:
                break
    return head


def pinned_ids(parts: IndexParts, query: str, search_filter: SearchFilter) -> list[str]:
    """The ids :func:`search` pins for ``query`` (see :func:`pin_closeness`)."""
    return _pinned(parts, SearchRun(query.strip(), "keyword", 1, search_filter))


def pin_closeness(query: str, doc_id: str, name: str) -> int:
    """How closely a pinned id matches the question, 0 (the exact id) to 4: the exact
    spelling first, then case-insensitive, then separator-insensitive matches."""
    if query in (doc_id, name):
        return 0 if query == doc_id else 1
    if query.lower() in (doc_id.lower(), name.lower()):
        return 2
    return 3 if normalize_identifier(doc_id) == normalize_identifier(query) else 4


def _pinned(parts: IndexParts, run: SearchRun) -> list[str]:
    """Documents whose identifier equals the question, closest first (:func:`pin_closeness`)."""
    query = run.query
    candidates = [
        d
        for d in parts.pins.get(normalize_identifier(query), ())
        if run.filter.allows(parts.documents[d])
    ]
    return sorted(candidates, key=lambda d: (pin_closeness(query, d, parts.documents[d].name), d))


def _lexical_signals(parts: IndexParts, run: SearchRun, depth: int) -> None:
    if run.mode == "vector":
        return
    tokens = tokenize(run.query)
    weights = parts.settings.weights
    hits = parts.keyword.search(tokens, depth)
    run.signals.append(NamedSignal("keyword", _in_place(parts, tokens, hits), weights["keyword"]))
    if weights.get("coordination", 0.0) > 0 and parts.settings.coordination_power > 0:
        coordinated = _coordination_signal(parts, tokens, hits)
        if coordinated.entries:  # a GraphQL-only index: nothing to add
            run.signals.append(coordinated)
    if parts.matcher is None:
        return
    run.matches = parts.matcher.match(run.query)
    if not run.matches:
        return
    expanded = parts.matcher.expansion_tokens(run.matches)
    run.signals.append(
        NamedSignal(
            "keyword_expanded",
            _keyword_hits(parts, expanded, depth),
            weights["keyword_expanded"],
        )
    )
    run.signals.append(  # curated weights (1.0 targets, 0.5 related, × priority): as they are
        NamedSignal("glossary", parts.matcher.rank(run.matches), weights["glossary"], scaled=True)
    )


def _keyword_hits(parts: IndexParts, tokens: list[str], depth: int) -> list[tuple[str, float]]:
    """BM25 hits for ``tokens`` (:func:`_in_place`)."""
    return _in_place(parts, tokens, parts.keyword.search(tokens, depth))


def _in_place(
    parts: IndexParts, tokens: list[str], hits: list[tuple[str, float]]
) -> list[tuple[str, float]]:
    """``hits`` re-scored by coordination when ``keyword_coordination`` is set
    (:mod:`schemaseek.signals.coordination`), else as they are."""
    power = parts.settings.keyword_coordination
    return _coordinated(parts, tokens, hits, power) if power > 0 and hits else hits


def _coordinated(
    parts: IndexParts, tokens: list[str], hits: list[tuple[str, float]], power: float
) -> list[tuple[str, float]]:
    texts = parts.keyword.analysed_texts(doc_id for doc_id, _ in hits)
    statistics = parts.keyword.term_statistics(tokens, texts)
    floor = parts.settings.keyword_coordination_floor
    return coordinate(hits, tokens, texts, statistics, power=power, floor=floor)


def _coordination_signal(
    parts: IndexParts, tokens: list[str], hits: list[tuple[str, float]]
) -> NamedSignal:
    """The SQL hits re-scored by coordination, on the scale of the best BM25 score (so a
    question little of which any table holds, as when it is worded in other words than the
    schema's, adds little), fused beside the plain keyword list."""
    documents = parts.documents
    sql = [hit for hit in hits if documents[hit[0]].kind in SQL_KINDS]
    best = hits[0][1] if hits and hits[0][1] > 0 else 1.0
    power = parts.settings.coordination_power
    entries = [(d, score / best) for d, score in _coordinated(parts, tokens, sql, power)]
    return NamedSignal("coordination", entries, parts.settings.weights["coordination"], scaled=True)


def _vector_signal(
    parts: IndexParts, run: SearchRun, depth: int, shared: SharedQuery | None
) -> None:
    if run.mode == "keyword":
        return
    if parts.embedder is None or parts.vector is None or not parts.vectors_ready:
        _degrade(parts, run, "no vectors are available")
        return
    adapter = adapter_of(parts)  # a misfitted adapter raises: the caller's error
    try:
        if shared is not None:
            query_vector = shared.vector(parts.embedder)
        else:
            query_vector = parts.embedder.embed_query(run.query)
        entries = dense_entries(parts, run, query_vector, adapter, depth)
    except Exception as exc:  # any provider failure degrades to lexical search
        _degrade(parts, run, f"query embedding failed: {exc}")
        return
    weights = parts.settings.weights
    # a list shorter than the fusion window holds every candidate (a small source): its
    # cosines are not stretched over the whole scale when they differ by less than the span
    span = parts.settings.vector_min_span if len(entries) < run.window else 0.0
    run.signals.append(NamedSignal("vector", entries, weights["vector"], min_span=span))
    if parts.feedback is not None and len(parts.feedback) and weights.get("feedback", 0) > 0:
        voted = parts.feedback.rank(query_vector)
        if voted:
            run.signals.append(NamedSignal("feedback", voted, weights["feedback"]))


def _bridge_signal(
    parts: IndexParts, run: SearchRun, depth: int, shared: SharedQuery | None
) -> None:
    """The name bridge (:mod:`schemaseek.signals.name_bridge`): in hybrid searches whose
    vectors served, the question's words no name holds, searched as their nearest name
    words. Best effort: a failure to embed the words leaves the search without the list."""
    settings, vocabulary, words = parts.settings, parts.name_vocabulary, parts.word_vectors
    weight = settings.weights.get("bridge", 0.0)
    if weight <= 0 or vocabulary is None or words is None or run.mode != "hybrid":
        return
    if run.degraded or (shared is not None and shared.deadline.expired):
        return
    unknown = vocabulary.unknown(run.query)
    if not unknown:
        return
    try:
        vectors = words.cached(unknown)
    except Exception as exc:
        logger.warning("name bridge skipped: embedding the question's words failed (%s)", exc)
        return
    led = vocabulary.nearest(
        vectors, neighbours=settings.bridge_neighbours, threshold=settings.bridge_threshold
    )
    tokens = tokenize(" ".join(name for _, name in led))
    if not tokens:
        return
    entries = _keyword_hits(parts, tokens, depth)
    run.signals.append(NamedSignal("bridge", entries, weight))
    run.bridged = ", ".join(f"{unknown[row]} → {name}" for row, name in led)


def _graph_signals(parts: IndexParts, run: SearchRun) -> None:
    """Graph signals re-rank the candidates the text signals found (weights 0 = off)."""
    signals = parts.graph_signals
    weights = parts.settings.weights
    if signals is None or not run.signals:
        return
    active = [
        n
        for n in (*STATIC_SIGNALS, *QUERY_SIGNALS)
        if weights.get(n, 0.0) > 0 and (n != "reach" or signals.has_root_fields)
    ]
    if not active:
        return
    card_of = parts.card_of
    provisional = _collapse_to_cards(parts, _fuse(parts, run))
    candidates = list(provisional)
    added: list[NamedSignal] = []
    for name in active:
        if name in STATIC_SIGNALS:
            entries = signals.rank_static(name, candidates)
        elif name == "proximity":
            vector = next((s for s in run.signals if s.name == "vector"), None)
            anchors = [card_of.get(d, d) for d, _ in (vector.entries[:5] if vector else [])]
            entries = signals.proximity(anchors, candidates) if anchors else []
        else:  # reach
            scored = top_k(provisional, 10)
            best = scored[0][1] if scored and scored[0][1] > 0 else 1.0
            entries, evidence = signals.reach([(d, s / best) for d, s in scored])
            for root, (target, hops) in evidence.items():
                run.notes[root] = f"leads to {target} in {hops} hop{'s' if hops > 1 else ''}"
        if entries:  # reach credits are shares of the best candidate's score: no rescaling
            added.append(NamedSignal(name, entries, weights[name], scaled=name == "reach"))
    run.signals.extend(added)


def _degrade(parts: IndexParts, run: SearchRun, why: str) -> None:
    """Serve keyword + glossary; the vector weight moves to keyword."""
    logger.warning("search degraded to keyword + glossary: %s", why)
    run.degraded = True
    weights = parts.settings.weights
    if run.mode == "vector":
        run.mode = "keyword"
        _lexical_signals(parts, run, max(run.limit * parts.settings.over_fetch, run.window))
    moved = weights["vector"]
    run.signals = [
        NamedSignal(s.name, s.entries, s.weight + moved) if s.name == "keyword" else s
        for s in run.signals
    ]


def _fuse(parts: IndexParts, run: SearchRun) -> dict[str, float]:
    if parts.settings.fusion == "weighted_sum":
        return weighted_sum(run.signals, run.window)
    return reciprocal_rank_fusion(run.signals, parts.settings.rrf_k)


def _collapse_to_cards(parts: IndexParts, fused: dict[str, float]) -> dict[str, float]:
    """Hits on part-documents (column facets, relationship neighbourhoods) count for their
    target card, which keeps its best part's score."""
    if not parts.card_of:
        return fused
    cards: dict[str, float] = {}
    for doc_id, score in fused.items():
        card = parts.card_of.get(doc_id, doc_id)
        if score > cards.get(card, float("-inf")):
            cards[card] = score
    return cards
