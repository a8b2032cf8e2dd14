"""Glossary signal: match business terms in a question and boost the schema items they mean.

Matching is per word, on word boundaries, case-insensitive: a term matches when its words
(stop words dropped) appear consecutively in the question, each equal to the question's word,
equal after stemming, or within a small edit distance. Fuzzy matching never applies to words of
three characters or fewer; it allows one edit up to seven characters and two from eight on,
so the spec's ceiling of two edits holds without "rate" matching "date".

Targets weigh 1.0 and related items 0.5, times the entry's priority. Targets are resolved
against the indexed documents: by exact id first, then by the item's own name; targets that
match nothing are ignored and reported.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from schemaseek.glossary import Glossary, GlossaryEntry
from schemaseek.text import STOP_WORDS, split_words, stem, tokenize_all

logger = logging.getLogger(__name__)

TARGET_WEIGHT = 1.0
RELATED_WEIGHT = 0.5


def max_edits(word: str) -> int:
    """How many edits a glossary word tolerates."""
    if len(word) <= 3:
        return 0
    return 1 if len(word) <= 7 else 2


def _content_words(text: str) -> list[str]:
    return [w for w in split_words(text) if w not in STOP_WORDS]


def _word_matches(term_word: str, term_stem: str, query_word: str, query_stem: str) -> bool:
    if term_word == query_word or term_stem == query_stem:
        return True
    limit = min(max_edits(term_word), max_edits(query_word))
    if limit == 0:
        return False
    return Levenshtein.distance(term_word, query_word, score_cutoff=limit) <= limit


@dataclass(frozen=True, slots=True)
class GlossaryMatch:
    """An entry that fired on a question, with the term and whether the match was fuzzy."""

    entry_index: int
    term: str
    fuzzy: bool


@dataclass(frozen=True, slots=True)
class _Term:
    entry_index: int
    text: str
    words: tuple[str, ...]
    stems: tuple[str, ...]


class GlossaryMatcher:
    """A glossary resolved against one document collection."""

    def __init__(self, glossary: Glossary, ids: Iterable[str], names: Mapping[str, str]) -> None:
        """``ids`` are the indexed document ids; ``names`` maps each id to its item name."""
        self.glossary = glossary
        id_set = set(ids)
        by_name: dict[str, list[str]] = {}
        by_lower: dict[str, list[str]] = {}
        for doc_id in sorted(id_set):
            name = names.get(doc_id, doc_id)
            by_name.setdefault(name, []).append(doc_id)
            by_lower.setdefault(name.lower(), []).append(doc_id)
        self.missing: list[str] = []

        def resolve(ref: str) -> list[str]:
            if ref in id_set:
                return [ref]
            found = by_name.get(ref) or by_lower.get(ref.lower()) or []
            if not found and ref not in self.missing:
                self.missing.append(ref)
            return found

        self._targets: list[list[str]] = []
        self._related: list[list[str]] = []
        self._prefer: list[str | None] = []
        for entry in glossary.entries:
            self._targets.append([d for ref in entry.targets for d in resolve(ref)])
            self._related.append([d for ref in entry.related for d in resolve(ref)])
            preferred = resolve(entry.prefer) if entry.prefer else []
            self._prefer.append(preferred[0] if preferred else None)
        if self.missing:
            logger.warning(
                "glossary targets not found in the index and ignored: %s",
                ", ".join(self.missing[:20]) + (" ..." if len(self.missing) > 20 else ""),
            )
        self._terms: list[_Term] = []
        for index, entry in enumerate(glossary.entries):
            for term in entry.terms:
                words = tuple(_content_words(term))
                if words:
                    stems = tuple(stem(w) for w in words)
                    self._terms.append(_Term(index, term, words, stems))

    def entry(self, index: int) -> GlossaryEntry:
        return self.glossary.entries[index]

    def _scan(self, question: str) -> list[tuple[_Term, bool]]:
        """Every term occurring in the question (its first occurrence), with fuzziness."""
        words = _content_words(question)
        if not words or not self._terms:
            return []
        stems = [stem(w) for w in words]
        found: list[tuple[_Term, bool]] = []
        for term in self._terms:
            n = len(term.words)
            for start in range(len(words) - n + 1):
                if all(
                    _word_matches(term.words[i], term.stems[i], words[start + i], stems[start + i])
                    for i in range(n)
                ):
                    fuzzy = any(
                        term.words[i] != words[start + i] and term.stems[i] != stems[start + i]
                        for i in range(n)
                    )
                    found.append((term, fuzzy))
                    break
        return found

    def match(self, question: str) -> list[GlossaryMatch]:
        """Entries whose terms occur in the question, best (exact, longest) term per entry."""
        best: dict[int, tuple[int, bool, str]] = {}
        for term, fuzzy in self._scan(question):
            n = len(term.words)
            current = best.get(term.entry_index)
            if current is None or (n, not fuzzy) > (current[0], not current[1]):
                best[term.entry_index] = (n, fuzzy, term.text)
        return [
            GlossaryMatch(index, text, fuzzy) for index, (_n, fuzzy, text) in sorted(best.items())
        ]

    def match_all(self, question: str) -> list[GlossaryMatch]:
        """Every term that occurs in the question (several per entry), in glossary order;
        :meth:`match` keeps the best of each entry. The linter asks which terms ever fire."""
        return [GlossaryMatch(t.entry_index, t.text, fuzzy) for t, fuzzy in self._scan(question)]

    def term_words(self, entry_index: int, term: str) -> int:
        """How many content words ``term`` of entry ``entry_index`` has (0: none, never fires)."""
        return next(
            (len(t.words) for t in self._terms if t.entry_index == entry_index and t.text == term),
            0,
        )

    def boosts(self, matches: Sequence[GlossaryMatch]) -> dict[str, float]:
        """Boost per document id: targets 1.0 and related 0.5, times priority, summed."""
        scores: dict[str, float] = {}
        for m in matches:
            priority = self.glossary.entries[m.entry_index].priority
            if priority == 0:
                continue
            preferred = self._prefer[m.entry_index]
            targets = [preferred] if preferred else self._targets[m.entry_index]
            for doc_id in targets:
                scores[doc_id] = scores.get(doc_id, 0.0) + TARGET_WEIGHT * priority
            for doc_id in self._related[m.entry_index]:
                scores[doc_id] = scores.get(doc_id, 0.0) + RELATED_WEIGHT * priority
        return scores

    def rank(self, matches: Sequence[GlossaryMatch]) -> list[tuple[str, float]]:
        """The glossary signal: boosted ids, highest boost first (ties by id)."""
        return sorted(self.boosts(matches).items(), key=lambda item: (-item[1], item[0]))

    def expansion_tokens(self, matches: Sequence[GlossaryMatch]) -> list[str]:
        """Tokens of the fired entries' target and related identifiers (``keyword_expanded``)."""
        refs: list[str] = []
        for m in matches:
            entry = self.glossary.entries[m.entry_index]
            refs.extend(self._targets[m.entry_index] or entry.targets)
            refs.extend(self._related[m.entry_index] or entry.related)
            if entry.prefer:
                refs.append(entry.prefer)
        seen: set[str] = set()
        out: list[str] = []
        for token in tokenize_all(refs):
            if token not in seen:
                seen.add(token)
                out.append(token)
        return out

    def terms_for(self, doc_id: str, matches: Sequence[GlossaryMatch]) -> tuple[str, ...]:
        """The matched terms whose entries point at ``doc_id``."""
        out = []
        for m in matches:
            i = m.entry_index
            if (
                doc_id in self._targets[i]
                or doc_id in self._related[i]
                or self._prefer[i] == doc_id
            ):
                out.append(m.term)
        return tuple(dict.fromkeys(out))

    def prefer_for(self, doc_id: str, matches: Sequence[GlossaryMatch]) -> str | None:
        """The preferred replacement for ``doc_id`` if a fired entry redirects away from it."""
        for m in matches:
            preferred = self._prefer[m.entry_index]
            if preferred and preferred != doc_id and doc_id in self._targets[m.entry_index]:
                return preferred
        return None

    def examples(self, matches: Sequence[GlossaryMatch]) -> list[dict[str, object]]:
        """Curated examples of the fired entries, in match order, without duplicates."""
        out: list[dict[str, object]] = []
        seen: set[str] = set()
        for m in matches:
            for example in self.glossary.entries[m.entry_index].examples:
                if example.query not in seen:
                    seen.add(example.query)
                    out.append(example.model_dump())
        return out

    def contexts(self) -> dict[str, list[str]]:
        """Context text per document id (targets and related), injected at index time."""
        out: dict[str, list[str]] = {}
        for i, entry in enumerate(self.glossary.entries):
            if not entry.context:
                continue
            for doc_id in dict.fromkeys(self._targets[i] + self._related[i]):
                out.setdefault(doc_id, []).append(entry.context)
        return out
