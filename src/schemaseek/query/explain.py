"""The last stages of a search: why each hit ranked (explanation), and its graph neighbours
(augmentation). Augmentation failing for a hit leaves its related items empty."""

from __future__ import annotations

import logging

from schemaseek.documents import Explanation, Hit, Related, SignalHit
from schemaseek.query.state import IndexParts, SearchRun

__all__ = ["augment", "explain"]

logger = logging.getLogger(__name__)


def explain(
    parts: IndexParts, run: SearchRun, final: list[tuple[str, float]], pinned: set[str]
) -> list[Hit]:
    """Each ranked ``(id, score)`` as a :class:`Hit` saying why: its rank and score in every
    signal that listed it (or a part of it), glossary terms, pin, rerank and notes."""
    positions: dict[str, dict[str, SignalHit]] = {}
    wanted = {d for d, _ in final}
    card_of = parts.card_of
    for signal in run.signals:
        for rank, (doc_id, score) in enumerate(signal.entries, start=1):
            card = card_of.get(doc_id, doc_id)
            if card in wanted:
                positions.setdefault(card, {}).setdefault(signal.name, SignalHit(rank, score))
    matcher = parts.matcher
    hits = []
    for doc_id, score in final:
        signals = positions.get(doc_id, {})
        notes = [run.notes[doc_id]] if doc_id in run.notes else []
        if run.bridged and "bridge" in signals:
            notes.append(f"question words read as names: {run.bridged}")
        explanation = Explanation(
            signals=signals,
            fused_score=score,
            pinned=doc_id in pinned,
            glossary_terms=matcher.terms_for(doc_id, run.matches) if matcher else (),
            prefer=matcher.prefer_for(doc_id, run.matches) if matcher else None,
            reranked=run.reranked,
            notes=tuple(notes),
        )
        hits.append(Hit(run.document(parts, doc_id), score, explanation))
    return hits


def augment(parts: IndexParts, run: SearchRun, hits: list[Hit]) -> list[Hit]:
    """Attach 1-hop graph neighbours (both directions) of the top hits, filter respected."""
    settings = parts.settings
    if settings.max_related == 0 or not hits:
        return hits
    in_results = {h.id for h in hits}
    out: list[Hit] = []
    for position, hit in enumerate(hits):
        if position >= settings.related_for_top:
            out.append(hit)
            continue
        try:
            related = _related(parts, run, hit.id, in_results)
        except Exception as exc:  # augmentation failure leaves related empty
            logger.warning("graph augmentation failed for %s: %s", hit.id, exc)
            related = []
        out.append(Hit(hit.document, hit.score, hit.explanation, tuple(related)))
    return out


_RELATION_ORDER = {
    "returns": 0,
    "foreignKey": 1,
    "hasField": 2,
    "implements": 3,
    "unionMember": 3,
    "member": 4,
}


def _related(parts: IndexParts, run: SearchRun, doc_id: str, exclude: set[str]) -> list[Related]:
    neighbours = sorted(
        parts.graph.neighbors(doc_id),
        key=lambda n: (_RELATION_ORDER.get(n[1], 9), n[0]),
    )
    out: list[Related] = []
    seen: set[str] = set()
    for other, relation, direction in neighbours:
        doc = parts.documents.get(other)
        if doc is None or other in exclude or other in seen or not run.filter.allows(doc):
            continue
        seen.add(other)
        label = relation if direction == "out" else f"{relation}⁻¹"
        out.append(Related(other, doc.kind, doc.source, label, doc_id))
        if len(out) >= parts.settings.max_related:
            break
    return out
