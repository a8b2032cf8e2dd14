"""What the keyword index counts about its terms, beside tantivy's own statistics.

For each term, how many documents hold it (in any field); the sorted vocabulary the prefix
fallback searches; the sum of all counts (so the mean number of distinct terms a document holds
is one division); and per document its number of distinct terms, which coordination needs
(:mod:`schemaseek.signals.coordination`). Not thread-safe: the keyword index calls it under its
lock.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from schemaseek.signals.coordination import TermStatistics

__all__ = ["TermCounts"]


class TermCounts:
    """Document counts per term and distinct-term counts per document."""

    def __init__(self, refs: dict[str, int] | None = None) -> None:
        self.refs: dict[str, int] = refs if refs is not None else {}
        self.vocabulary: list[str] = sorted(self.refs)  # the keys of refs, sorted
        self._total = sum(self.refs.values())
        self._distinct: dict[str, int] = {}  # doc id -> its distinct terms, once known

    def add(self, doc_id: str, terms: set[str], touched: set[str]) -> None:
        """Count a new document's distinct ``terms``; a term seen for the first time goes
        into ``touched``."""
        self._distinct[doc_id] = len(terms)
        self._total += len(terms)
        for term in terms:
            count = self.refs.get(term, 0)
            self.refs[term] = count + 1
            if count == 0:
                touched.add(term)

    def remove(self, doc_id: str, terms: set[str], touched: set[str]) -> None:
        """Uncount a removed document's distinct ``terms``; a term no document holds any more
        goes into ``touched``."""
        self._distinct.pop(doc_id, None)
        self._total -= len(terms)
        for term in terms:
            count = self.refs[term] - 1
            if count:
                self.refs[term] = count
            else:
                del self.refs[term]
                touched.add(term)

    def sync_vocabulary(self, touched: set[str]) -> None:
        """Bring the sorted vocabulary in line for terms whose count hit or left 0."""
        vocabulary = self.vocabulary
        if len(touched) > max(64, len(vocabulary) // 8):
            self.vocabulary = sorted(self.refs)
            return
        for term in touched:
            at = bisect.bisect_left(vocabulary, term)
            listed = at < len(vocabulary) and vocabulary[at] == term
            if term in self.refs and not listed:
                vocabulary.insert(at, term)
            elif term not in self.refs and listed:
                del vocabulary[at]

    def statistics(
        self,
        terms: Iterable[str],
        doc_ids: Iterable[str],
        documents: int,
        terms_of: Callable[[str], set[str] | None],
    ) -> TermStatistics:
        """:class:`TermStatistics` for ``terms`` and the documents of ``doc_ids`` that
        ``terms_of`` knows (it returns a document's distinct terms, or None when it is not
        indexed; asked only for documents counted before, as restored ones are)."""
        distinct = {}
        for doc_id in doc_ids:
            count = self._distinct.get(doc_id)
            if count is None:
                found = terms_of(doc_id)
                if found is None:
                    continue
                count = self._distinct[doc_id] = len(found)
            distinct[doc_id] = count
        mean = self._total / documents if documents else 0.0
        return TermStatistics({t: self.refs.get(t, 0) for t in terms}, documents, mean, distinct)
