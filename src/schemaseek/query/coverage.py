"""How much of the question the index's words cover, as a weight on the lexical lists.

Score fusion min-max normalises each list, so BM25's best hit counts 1.0 whether it matched
the whole question or one word of it. A question worded in other words than the schema's
("vocalists" for ``singer``) keeps only its generic words for BM25, and those pick the wrong
table with full confidence, while the dense list, which the rewording hurts less, is what
should decide. So in a hybrid search whose vectors served, the plain keyword list and its
coordinated copy are weighted by ``(1 − absent / content) ** power``: *content* counts the
question's content words, *absent* those that no SQL table or column name holds and no
indexed text holds either (a value the index holds, a word of a description, still counts
as covered). Only indexes with a name vocabulary (SQL names, the bridge on) take part, so a
GraphQL-only index is unchanged.

Power 1 was chosen on BIRD-dev (objective: mean of per-source, pooled and pooled-synonym MRR)
and reported on Spider-dev, and Spider-dev's own choice (2) reported on BIRD-dev
(bench/QUALITY.md, session 24).
"""

from __future__ import annotations

import dataclasses

from schemaseek.query.state import IndexParts, SearchRun
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.name_bridge import NameVocabulary, content_words
from schemaseek.text import tokenize

__all__ = ["COVERED_SIGNALS", "absent_share", "weigh_by_coverage"]

COVERED_SIGNALS = frozenset({"keyword", "coordination"})


def absent_share(question: str, vocabulary: NameVocabulary | None, keyword: KeywordIndex) -> float:
    """The share of the question's content words that no name of ``vocabulary`` and no text
    of ``keyword`` holds, among those the keyword analyser keeps; 0.0 without a vocabulary
    or such words."""
    if vocabulary is None:
        return 0.0
    # a word the keyword analyser keeps no term of cannot be looked up: it is not counted
    tokens = {word: terms for word in content_words(question) if (terms := tokenize(word))}
    unknown = [w for w in vocabulary.unknown(question) if w in tokens]
    if not unknown:
        return 0.0
    statistics = keyword.term_statistics({t for w in unknown for t in tokens[w]}, ())
    held = statistics.document_frequency
    absent = [w for w in unknown if not any(held.get(t, 0) for t in tokens[w])]
    return len(absent) / len(tokens)


def weigh_by_coverage(parts: IndexParts, run: SearchRun) -> None:
    """Scale the weights of the lexical lists in ``COVERED_SIGNALS`` by the question's
    coverage (module doc): hybrid searches whose vector list served only."""
    power = parts.settings.lexical_coverage_power
    if power <= 0 or run.mode != "hybrid" or run.degraded:
        return
    if not any(signal.name == "vector" for signal in run.signals):
        return
    share = absent_share(run.query, parts.name_vocabulary, parts.keyword)
    if share <= 0:
        return
    factor = (1.0 - share) ** power
    run.signals[:] = [
        dataclasses.replace(s, weight=s.weight * factor) if s.name in COVERED_SIGNALS else s
        for s in run.signals
    ]
