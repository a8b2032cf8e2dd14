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

Off by default (``keyword_coordination`` = 0): chosen on BIRD-dev and reported on Spider-dev
(and the reverse) it lifts both past the numbers we aim at, but it costs Spider 2.0's pooled
warehouse catalog deep recall (bench/QUALITY.md, sessions 22 and 23).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from schemaseek.signals.keyword_fields import keep_tokens

__all__ = ["TermStatistics", "coordinate"]

Hits = list[tuple[str, float]]


@dataclass(frozen=True)
class TermStatistics:
    """What :func:`coordinate` needs of the index: the document frequency of the question's
    terms, the number of documents and their mean number of distinct terms
    (:meth:`schemaseek.signals.keyword.KeywordIndex.term_statistics`)."""

    document_frequency: dict[str, int]
    documents: int
    mean_distinct_terms: float


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
    # per term: its idf weight and the chance that a document of mean size lacks it
    weights = {}
    absent = []
    for term in terms:
        df = min(frequency.get(term, 0), n)
        weights[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        absent.append((weights[term], 1.0 - df / n))
    total = sum(weights.values())
    mean = statistics.mean_distinct_terms or 1.0
    scored: Hits = []
    for doc_id, score in hits:
        text = texts.get(doc_id)
        if text is None:
            scored.append((doc_id, score))
            continue
        words = set(text.split())
        held = words.intersection(weights) or {t for t in terms if _prefixes_any(t, words)}
        size = len(words) / mean
        expected = sum(weight * (1.0 - lack**size) for weight, lack in absent)
        excess = max(sum(weights[t] for t in held) - expected, 0.0) / total
        scored.append((doc_id, score * (floor + (1.0 - floor) * excess) ** power))
    scored.sort(key=lambda hit: -hit[1])
    return scored


def _prefixes_any(term: str, words: set[str]) -> bool:
    return any(word.startswith(term) for word in words)
