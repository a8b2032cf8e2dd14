"""Coordination: a keyword hit's BM25 score scaled by how much of the question it holds.

BM25 adds up the question's terms one by one, and its length normalisation favours short
documents: a table named ``continents`` with two columns outscores ``country``, whose fifteen
columns hold *surface*, *area* and *continent* of the same question, on the strength of one
name match. Lucene's classic similarity corrected this with a coordination factor, the share
of the query's terms a document holds; this module applies it to the hits BM25 returned:
``score × (held / distinct terms) ** power``. A term counts as held when the document's
analysed text contains it; a hit that holds none exactly (found by the prefix fallback) counts
the terms some word of it starts with. Hits are re-sorted by the new score, ties in BM25 order.

The power is the ``keyword_coordination`` setting, off (0) by default. At 5, chosen on one
SQL benchmark and reported on the other, it lifts BIRD-dev and Spider-dev (catalogs of small,
well-named tables), but it costs Spider 2.0's pooled catalog of wide warehouse tables, which
hold more words of a long question by chance (bench/QUALITY.md, session 22).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schemaseek.signals.keyword_fields import keep_tokens

__all__ = ["coordinate"]

Hits = list[tuple[str, float]]


def coordinate(hits: Hits, tokens: Sequence[str], texts: Mapping[str, str], power: float) -> Hits:
    """``hits`` re-scored by coordination (module doc); ``texts`` holds each hit's analysed
    text (its indexed tokens, space-separated); a hit missing from it keeps its score."""
    terms = list(dict.fromkeys(keep_tokens(tokens)))
    if power <= 0 or not hits or not terms:
        return hits
    scored: Hits = []
    for doc_id, score in hits:
        text = texts.get(doc_id)
        if text is None:
            scored.append((doc_id, score))
            continue
        padded = f" {text} "
        held = sum(f" {term} " in padded for term in terms)
        if not held:
            held = sum(f" {term}" in padded for term in terms)
        scored.append((doc_id, score * (held / len(terms)) ** power))
    scored.sort(key=lambda hit: -hit[1])
    return scored
