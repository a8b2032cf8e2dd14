"""The glossary linter: what in a glossary cannot work, or works against another entry.

:func:`lint_glossary` checks a glossary against the sources of the current configuration
(and, optionally, a set of questions) and returns :class:`Finding` rows:

========================  =======  ========================================================
code                      level    what
========================  =======  ========================================================
``unknown_reference``     error    a target, related id or ``prefer`` names nothing in any
                                   source (with the closest existing ids as suggestions)
``entry_unreachable``     error    none of an entry's references exists in any source
``prefer_cycle``          error    ``prefer`` redirects lead back to where they started
``example_invalid``       error    a curated example does not validate against any of the
                                   GraphQL sources' schemas
``duplicate_term``        warning  two entries have a term that matches the same words
``prefer_chain``          warning  a ``prefer`` target is itself redirected (one hop only
                                   is followed at search time)
``term_never_fires``      warning  no question of the given set fires the term
``example_variables``     warning  an example omits a required variable or passes one its
                                   query does not declare
``overlapping_terms``     info     one entry's term fires inside another entry's term
========================  =======  ========================================================

References resolve the way search resolves them (:class:`~schemaseek.signals.glossary.
GlossaryMatcher`): by id, then by item name, then by lower-case name, in any source. Term
checks use the matcher itself, so "matches" means what it means at search time (stems and
the small edit distance included).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import graphql as gql
from rapidfuzz import fuzz, process

from schemaseek.glossary import Glossary, GlossaryEntry, GlossaryExample
from schemaseek.signals.glossary import GlossaryMatcher
from schemaseek.sources.base import SourceSchema

__all__ = [
    "LEVELS",
    "Finding",
    "Level",
    "LintReport",
    "lint_glossary",
    "unresolved_references",
    "warn_unresolved",
]

logger = logging.getLogger(__name__)

Level = Literal["error", "warning", "info"]
LEVELS: tuple[Level, ...] = ("error", "warning", "info")
SUGGESTIONS = 3
SUGGESTION_CUTOFF = 60.0


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: its level and code, the entry (index and first term) and what is wrong."""

    level: Level
    code: str
    entry: int
    message: str
    term: str | None = None
    ref: str | None = None
    suggestions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "level": self.level,
            "code": self.code,
            "entry": self.entry,
            "message": self.message,
        }
        if self.term is not None:
            out["term"] = self.term
        if self.ref is not None:
            out["ref"] = self.ref
        if self.suggestions:
            out["suggestions"] = list(self.suggestions)
        return out


@dataclass(frozen=True, slots=True)
class LintReport:
    """Every finding, and what was checked."""

    entries: int
    sources: tuple[str, ...]
    questions: int | None
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level == level)

    @property
    def failed(self) -> bool:
        """True when an error-level finding exists."""
        return self.count("error") > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "sources": list(self.sources),
            "questions": self.questions,
            "counts": {level: self.count(level) for level in LEVELS},
            "findings": [f.to_json() for f in self.findings],
        }


class _Catalog:
    """The ids and names of every source's documents, for resolution and suggestions."""

    def __init__(self, schemas: Sequence[SourceSchema]) -> None:
        self.ids: dict[str, str] = {}  # id → source
        self.names: dict[str, list[str]] = {}
        for schema in schemas:
            for doc in schema.documents:
                self.ids.setdefault(doc.id, schema.name)
                self.names.setdefault(doc.name, []).append(doc.id)
                self.names.setdefault(doc.name.lower(), []).append(doc.id)
        self.choices = sorted(d for d in self.ids if "#" not in d)

    def resolve(self, ref: str) -> list[str]:
        if ref in self.ids:
            return [ref]
        return self.names.get(ref) or self.names.get(ref.lower()) or []

    def suggest(self, ref: str) -> tuple[str, ...]:
        found = process.extract(
            ref,
            self.choices,
            scorer=fuzz.ratio,
            processor=str.lower,
            limit=SUGGESTIONS,
            score_cutoff=SUGGESTION_CUTOFF,
        )
        return tuple(choice for choice, _score, _index in found)


def _refs(entry: GlossaryEntry) -> list[tuple[str, str]]:
    pairs = [("target", r) for r in entry.targets] + [("related", r) for r in entry.related]
    return pairs + ([("prefer", entry.prefer)] if entry.prefer else [])


def unresolved_references(glossary: Glossary, schemas: Sequence[SourceSchema]) -> list[str]:
    """References (targets, related, prefer) that name nothing in any of ``schemas``."""
    catalog = _Catalog(schemas)
    refs = (ref for entry in glossary.entries for _kind, ref in _refs(entry))
    return sorted({ref for ref in refs if not catalog.resolve(ref)})


def warn_unresolved(glossary: Glossary, schemas: Sequence[SourceSchema]) -> list[str]:
    """Log one warning naming the references found in no source (engines narrow the glossary
    to their own source, so each one cannot tell another source's items from typos)."""
    missing = unresolved_references(glossary, schemas)
    if missing:
        shown = ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else "")
        logger.warning(
            "glossary references found in no source and ignored: %s "
            "(run 'schemaseek glossary lint' for suggestions)",
            shown,
        )
    return missing


def lint_glossary(
    glossary: Glossary,
    schemas: Sequence[SourceSchema],
    questions: Sequence[str] | None = None,
) -> LintReport:
    """Every check of the module docstring; term coverage only when ``questions`` is given."""
    catalog = _Catalog(schemas)
    bare = Glossary(
        entries=tuple(
            e.model_copy(update={"targets": (), "related": (), "prefer": None})
            for e in glossary.entries
        )
    )
    matcher = GlossaryMatcher(bare, (), {})
    findings = [
        *_references(glossary, catalog, [s.name for s in schemas]),
        *_terms(glossary, matcher),
        *_prefer(glossary, catalog),
        *_examples(glossary, schemas),
    ]
    if questions is not None:
        findings += _coverage(glossary, matcher, questions)
    order = {level: i for i, level in enumerate(LEVELS)}
    findings.sort(key=lambda f: (order[f.level], f.entry, f.code))
    return LintReport(
        entries=len(glossary.entries),
        sources=tuple(s.name for s in schemas),
        questions=len(questions) if questions is not None else None,
        findings=tuple(findings),
    )


def _label(entry: GlossaryEntry) -> str:
    return repr(entry.terms[0])


def _references(glossary: Glossary, catalog: _Catalog, sources: list[str]) -> Iterable[Finding]:
    for i, entry in enumerate(glossary.entries):
        refs = _refs(entry)
        missing = [(kind, ref) for kind, ref in refs if not catalog.resolve(ref)]
        for kind, ref in missing:
            hints = catalog.suggest(ref)
            hint = f"; did you mean {', '.join(hints)}?" if hints else ""
            yield Finding(
                "error", "unknown_reference", i,
                f"entry {i} ({_label(entry)}): {kind} {ref!r} exists in no source{hint}",
                ref=ref, suggestions=hints,
            )  # fmt: skip
        if refs and len(missing) == len(refs):
            yield Finding(
                "error", "entry_unreachable", i,
                f"entry {i} ({_label(entry)}): none of its references exists in "
                f"{', '.join(sources) or 'any source'}; it can never boost anything",
            )  # fmt: skip


def _terms(glossary: Glossary, matcher: GlossaryMatcher) -> Iterable[Finding]:
    """Terms of one entry that fire, whole or in part, on another entry's term."""
    seen: set[tuple[int, str, int, str]] = set()
    inside: dict[tuple[int, str, int], list[str]] = {}
    for i, entry in enumerate(glossary.entries):
        for term in entry.terms:
            size = matcher.term_words(i, term)
            if size == 0:
                yield Finding(
                    "warning", "term_never_fires", i,
                    f"entry {i} ({_label(entry)}): {term!r} has only stop words; it never fires",
                    term=term,
                )  # fmt: skip
            for hit in matcher.match_all(term):
                j, other = hit.entry_index, hit.term
                if j == i or (j, other, i, term) in seen:
                    continue
                seen.add((i, term, j, other))
                if matcher.term_words(j, other) < size:
                    inside.setdefault((i, term, j), []).append(other)
                    continue
                how = f"fuzzy: {term!r} ~ {other!r}" if hit.fuzzy else f"{term!r} = {other!r}"
                yield Finding(
                    "warning", "duplicate_term", i,
                    f"entry {i} ({_label(entry)}) and entry {j} ({_label(glossary.entries[j])}) "
                    f"match the same words ({how}): a question using them fires both",
                    term=term,
                )  # fmt: skip
    for (i, term, j), shorter in inside.items():
        names = " / ".join(repr(t) for t in shorter)
        yield Finding(
            "info", "overlapping_terms", i,
            f"{names} (entry {j}) also fire inside {term!r} (entry {i}): a question saying "
            f"{term!r} fires both entries",
            term=term,
        )  # fmt: skip


def _prefer(glossary: Glossary, catalog: _Catalog) -> Iterable[Finding]:
    """Redirects ``target → prefer``; a chain is a redirected destination, a cycle a loop."""
    redirect: dict[str, tuple[str, int]] = {}
    for i, entry in enumerate(glossary.entries):
        if not entry.prefer:
            continue
        destination = next(iter(catalog.resolve(entry.prefer)), entry.prefer)
        for ref in entry.targets:
            for doc_id in catalog.resolve(ref) or [ref]:
                if doc_id != destination:
                    redirect.setdefault(doc_id, (destination, i))
    reported: set[frozenset[str]] = set()
    for start, (first, entry_index) in sorted(redirect.items()):
        path, node = [start], first
        while node in redirect and node not in path:
            path.append(node)
            node = redirect[node][0]
        if node in path:
            loop = frozenset(path[path.index(node) :])
            if loop not in reported:
                reported.add(loop)
                cycle = " → ".join([*path[path.index(node) :], node])
                yield Finding(
                    "error", "prefer_cycle", entry_index,
                    f"entry {entry_index}: prefer redirects go round in a cycle: {cycle}",
                    ref=start,
                )  # fmt: skip
        elif len(path) > 1:
            chain = " → ".join([*path, node])
            yield Finding(
                "warning", "prefer_chain", entry_index,
                f"entry {entry_index}: prefer chain {chain}; search follows one hop only "
                f"(so {start} goes to {first}): point the entry at {node} directly",
                ref=start,
            )  # fmt: skip


def _examples(glossary: Glossary, schemas: Sequence[SourceSchema]) -> Iterable[Finding]:
    from schemaseek.paths.graphql import schema_from_sdl

    graphql = [schema_from_sdl(sdl) for s in schemas if (sdl := s.raw.get("sdl"))]
    for i, entry in enumerate(glossary.entries):
        for number, example in enumerate(entry.examples, start=1):
            where = f"entry {i} ({_label(entry)}) example {number}"
            if not graphql:
                yield Finding(
                    "info", "example_unchecked", i,
                    f"{where}: no GraphQL source to validate it against",
                )  # fmt: skip
                continue
            yield from _example(i, where, example, graphql)


def _example(
    entry: int, where: str, example: GlossaryExample, schemas: Sequence[gql.GraphQLSchema]
) -> Iterable[Finding]:
    try:
        document = gql.parse(example.query)
    except gql.GraphQLError as exc:
        yield Finding("error", "example_invalid", entry, f"{where}: not GraphQL: {exc.message}")
        return
    errors = min((gql.validate(s, document) for s in schemas), key=len)
    if errors:
        text = "; ".join(e.message for e in errors[:3])
        yield Finding("error", "example_invalid", entry, f"{where} does not validate: {text}")
        return
    declared: dict[str, bool] = {}
    for op in document.definitions:
        if isinstance(op, gql.OperationDefinitionNode):
            for var in op.variable_definitions or ():
                required = isinstance(var.type, gql.NonNullTypeNode) and var.default_value is None
                declared[var.variable.name.value] = required
    missing = [n for n, required in declared.items() if required and n not in example.variables]
    extra = [n for n in example.variables if n not in declared]
    if missing or extra:
        parts = ([f"required ${', $'.join(missing)} not given"] if missing else []) + (
            [f"${', $'.join(extra)} not declared"] if extra else []
        )
        yield Finding("warning", "example_variables", entry, f"{where}: {'; '.join(parts)}")


def _coverage(
    glossary: Glossary, matcher: GlossaryMatcher, questions: Sequence[str]
) -> Iterable[Finding]:
    fired: set[tuple[int, str]] = set()
    for question in questions:
        fired.update((m.entry_index, m.term) for m in matcher.match_all(question))
    for i, entry in enumerate(glossary.entries):
        for term in entry.terms:
            if (i, term) not in fired:
                yield Finding(
                    "warning", "term_never_fires", i,
                    f"entry {i} ({_label(entry)}): no question of {len(questions)} fires "
                    f"{term!r}",
                    term=term,
                )  # fmt: skip
