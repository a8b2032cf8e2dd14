"""Coordination: a keyword hit's BM25 score scaled by how much of the question it holds
beyond what a document of its size holds by chance.

BM25 adds up the question's terms one by one, and its length normalisation favours short
documents: a table named ``continents`` with two columns outscores ``country``, whose fifteen
columns hold *surface*, *area* and *continent* of the same question, on the strength of one
name match. Lucene's classic similarity corrected this with a coordination factor, the share
of the query's terms a document holds. A plain share rewards wide documents, though: a
warehouse table of 160 columns holds several words of any long question by chance.

So the share here is weighted and chance-corrected. Each distinct question term counts its
BM25 idf; a hit's *held* weight is the idf of the terms its analysed text contains (a hit that
holds none exactly, found by the prefix fallback, counts the terms some word of it starts
with). A random document with u distinct terms holds a term of document frequency df with
probability 1 − (1 − df/N)^(u/ū), ū the index's mean; the *expected* weight sums idf times
that. The factor is ``(floor + (1 − floor) · max(held − expected, 0) / total) ** power`` and
hits are re-sorted by the new score, ties in BM25 order.

The search pipeline uses it two ways (bench/QUALITY.md, session 23). By default the
coordinated copy of the keyword list's SQL hits is fused beside the plain list, on the best
BM25 score's scale (``weights.coordination``, ``coordination_power``). Replacing the keyword
lists by their coordinated copies (``keyword_coordination``) is an option: chosen on BIRD-dev
and reported on Spider-dev (and the reverse) it lifts both further, but it costs Spider 2.0's
pooled warehouse catalog deep recall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from schemaseek.signals.keyword_fields import keep_tokens

__all__ = ["TermStatistics", "coordinate"]

Hits = list[tuple[str, float]]
_SCANNED_TERMS = 8  # questions of more distinct terms split each hit's text into a set


@dataclass(frozen=True)
class TermStatistics:
    """What :func:`coordinate` needs of the index: the document frequency of the question's
    terms, the number of documents, their mean number of distinct terms and that of each hit
    (:meth:`schemaseek.signals.keyword.KeywordIndex.term_statistics`)."""

    document_frequency: dict[str, int]
    documents: int
    mean_distinct_terms: float
    distinct_terms: dict[str, int]  # of the hits asked about


def coordinate(
    hits: Hits,
    tokens: Sequence[str],
    texts: Mapping[str, str],
    statistics: TermStatistics,
    *,
    power: float,
    floor: float,
) -> Hits:
    """``hits`` re-scored by coordination beyond chance (module doc). ``texts`` holds each
    hit's analysed text (its indexed tokens, space-separated); a hit missing from it keeps
    its score."""
    terms = list(dict.fromkeys(keep_tokens(tokens)))
    n = statistics.documents
    if power <= 0 or not hits or not terms or n == 0:
        return hits
    frequency = statistics.document_frequency
    # per term: its idf weight and the share of documents that lack it
    df = np.minimum(np.array([frequency.get(t, 0) for t in terms], dtype=np.float64), n)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    weight = dict(zip(terms, idf.tolist(), strict=True))
    lack = 1.0 - df / n
    known = [(doc_id, score, texts[doc_id]) for doc_id, score in hits if doc_id in texts]
    held = np.array([sum(weight[t] for t in _held(terms, text)) for _, _, text in known])
    distinct = statistics.distinct_terms
    size = np.array([distinct.get(doc_id, 0) for doc_id, _, _ in known], dtype=np.float64)
    size /= statistics.mean_distinct_terms or 1.0
    expected = (1.0 - lack[None, :] ** size[:, None]) @ idf
    excess = np.maximum(held - expected, 0.0) / float(idf.sum())
    factor = (floor + (1.0 - floor) * excess) ** power
    rescored = dict(zip((doc_id for doc_id, _, _ in known), factor.tolist(), strict=True))
    scored = [(doc_id, score * rescored.get(doc_id, 1.0)) for doc_id, score in hits]
    scored.sort(key=lambda hit: -hit[1])
    return scored


def _held(terms: Sequence[str], text: str) -> Iterable[str]:
    """The terms ``text`` holds, else (a hit of the prefix fallback) those a word of it starts
    with. A few terms are looked up in the text itself; many, in the set of its words (one
    split costs about what eight scans do: bench/RESULTS.md)."""
    padded = f" {text} "
    if len(terms) <= _SCANNED_TERMS:
        return [t for t in terms if f" {t} " in padded] or [t for t in terms if f" {t}" in padded]
    words = set(text.split())
    return words.intersection(terms) or [t for t in terms if f" {t}" in padded]
