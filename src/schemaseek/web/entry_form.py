"""The glossary edit form: one entry as text fields, and the candidate glossary it makes.

An entry is edited as a form (terms, targets and related ids one per line; context, domain,
priority, prefer; examples as JSON). The candidate glossary is the served one with that entry
replaced, added or deleted; it is validated by the glossary's own parser, linted against the
served sources, and tried on the labelled questions before anything is saved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from schemaseek.errors import GlossaryError
from schemaseek.glossary import Glossary, GlossaryEntry, parse_glossary

__all__ = ["EntryForm", "candidate_glossary", "entry_form", "form_from_fields"]

NEW = "new"


@dataclass(frozen=True, slots=True)
class EntryForm:
    """The edit form's fields as text (what the page shows and posts back)."""

    entry: str  # the index being edited, or "new"
    terms: str = ""
    targets: str = ""
    related: str = ""
    context: str = ""
    domain: str = ""
    priority: str = "1"
    prefer: str = ""
    examples: str = "[]"
    delete: bool = False

    @property
    def index(self) -> int | None:
        return int(self.entry) if self.entry.isdigit() else None


def entry_form(glossary: Glossary, entry: str) -> EntryForm:
    """The form for entry ``entry`` of ``glossary`` (an empty one for ``"new"``).

    Raises:
        KeyError: no such entry.
    """
    if entry == NEW:
        return EntryForm(NEW)
    if not entry.isdigit() or int(entry) >= len(glossary.entries):
        raise KeyError(entry)
    value = glossary.entries[int(entry)]
    return EntryForm(
        entry=entry,
        terms="\n".join(value.terms),
        targets="\n".join(value.targets),
        related="\n".join(value.related),
        context=value.context,
        domain=value.domain or "",
        priority=f"{value.priority:g}",
        prefer=value.prefer or "",
        examples=json.dumps([e.model_dump() for e in value.examples], indent=1),
    )


def form_from_fields(fields: dict[str, str]) -> EntryForm:
    """The posted form (unknown fields ignored, missing ones empty)."""
    return EntryForm(
        entry=fields.get("entry", NEW) or NEW,
        terms=fields.get("terms", ""),
        targets=fields.get("targets", ""),
        related=fields.get("related", ""),
        context=fields.get("context", ""),
        domain=fields.get("domain", ""),
        priority=fields.get("priority", "1") or "1",
        prefer=fields.get("prefer", ""),
        examples=fields.get("examples", "") or "[]",
        delete=fields.get("delete") in ("1", "on", "true"),
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _entry_data(form: EntryForm) -> dict[str, Any]:
    try:
        examples = json.loads(form.examples)
    except json.JSONDecodeError as exc:
        raise GlossaryError(f"examples are not JSON: {exc.msg} (line {exc.lineno})") from None
    try:
        priority: Any = float(form.priority)
    except ValueError:
        priority = form.priority  # the parser names the field and the problem
    return {
        "terms": _lines(form.terms),
        "targets": _lines(form.targets),
        "related": _lines(form.related),
        "context": form.context.strip(),
        "domain": form.domain.strip() or None,
        "priority": priority,
        "prefer": form.prefer.strip() or None,
        "examples": examples,
    }


def candidate_glossary(served: Glossary, form: EntryForm) -> Glossary:
    """``served`` with the form's entry replaced, added or (``delete``) removed.

    Raises:
        GlossaryError: the entry is invalid (the message names the field), or it names an
            entry that does not exist.
    """
    entries: list[GlossaryEntry | dict[str, Any]] = list(served.entries)
    index = form.index
    if index is not None and index >= len(entries):
        raise GlossaryError(f"entry {index} does not exist (the glossary has {len(entries)})")
    if form.delete:
        if index is None:
            raise GlossaryError("a new entry cannot be deleted")
        del entries[index]
    elif index is None:
        entries.append(_entry_data(form))
    else:
        entries[index] = _entry_data(form)
    data = {"entries": [e.model_dump() if isinstance(e, GlossaryEntry) else e for e in entries]}
    return parse_glossary(data, "the edited glossary")
