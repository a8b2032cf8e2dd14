"""The glossary file: business vocabulary mapped to schema identifiers.

Format (JSON)::

    {"entries": [{"terms": ["royalties", "royalty payments"],
                  "targets": ["Query.abacusContract"],
                  "related": ["AbacusPaymentTerm"],
                  "context": "Royalties are tracked as Abacus contracts ...",
                  "domain": "royalties",
                  "priority": 2,
                  "prefer": null,
                  "examples": [{"question": "...", "query": "...", "variables": {}}]}]}

``priority`` is a multiplier (0 = no boost, 1 = normal, 2 = double); the first-generation names
``"primary"`` (1.1) and ``"secondary"`` (1.0) are accepted too. ``prefer`` redirects: when the
entry fires, its boost goes to the preferred id and hits on its targets say "prefer X".
A missing file is an empty glossary plus one warning; a malformed file is a ``GlossaryError``
that names the file, the entry and the field.

``{{env}}`` in any text of an entry (``"targets": ["FACTS.{{env}}.DIM_ARTIST"]``) stands for
the deployment's environment (``SNOWFLAKE_ENV``, else ``ENVIRONMENT``): see
:meth:`Glossary.resolved` and :func:`resolve_placeholders`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from schemaseek.errors import GlossaryError

if TYPE_CHECKING:
    from schemaseek.sources.base import SourceSchema

logger = logging.getLogger(__name__)

_NAMED_PRIORITIES = {"primary": 1.1, "secondary": 1.0}


class GlossaryExample(BaseModel):
    """A curated question with a query known to answer it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1)
    query: str = Field(min_length=1)
    variables: dict[str, Any] = Field(default_factory=dict)


class GlossaryEntry(BaseModel):
    """One business concept: the words users say and the schema items they mean."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    terms: tuple[str, ...] = Field(min_length=1)
    targets: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    context: str = ""
    domain: str | None = None
    priority: float = Field(default=1.0, ge=0.0, le=10.0)
    prefer: str | None = None
    examples: tuple[GlossaryExample, ...] = ()

    @field_validator("priority", mode="before")
    @classmethod
    def _named_priority(cls, value: Any) -> Any:
        if isinstance(value, str) and value.lower() in _NAMED_PRIORITIES:
            return _NAMED_PRIORITIES[value.lower()]
        return value

    @field_validator("terms")
    @classmethod
    def _non_blank_terms(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(t.strip() for t in value)
        if any(not t for t in cleaned):
            raise ValueError("terms must not be blank")
        return cleaned


class Glossary(BaseModel):
    """All entries of one glossary file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entries: tuple[GlossaryEntry, ...] = ()

    def __len__(self) -> int:
        return len(self.entries)

    def resolved(self, values: Mapping[str, str]) -> Glossary:
        """Every ``{{name}}`` placeholder in every text of every entry replaced by
        ``values[name]`` (``{"env": "PROD"}``); one warning names placeholders left open."""
        text = json.dumps(self.model_dump(mode="json"), ensure_ascii=False)
        resolved = resolve_placeholders(text, {k: json.dumps(v)[1:-1] for k, v in values.items()})
        missing = placeholders(resolved)
        if missing:
            logger.warning(
                "glossary placeholders without a value: %s (set SNOWFLAKE_ENV or ENVIRONMENT)",
                ", ".join(sorted("{{" + name + "}}" for name in missing)),
            )
        return Glossary.model_validate(json.loads(resolved))

    def narrowed_to(self, schema: SourceSchema) -> Glossary:
        """The entries with their references narrowed to ``schema``'s items (by id, name or
        lower-case name), so one source's engine does not warn about another's items; entries
        left without a reference are dropped."""
        return self.narrowed_to_items((d.id, d.name) for d in schema.documents)

    def narrowed_to_items(self, items: Iterable[tuple[str, str]]) -> Glossary:
        """:meth:`narrowed_to` over ``(id, name)`` pairs (a restored index knows them without
        reading its documents)."""
        known: set[str] = set()
        for doc_id, name in items:
            known |= {doc_id, name, name.lower()}

        def here(ref: str) -> bool:
            return ref in known or ref.lower() in known

        entries = []
        for entry in self.entries:
            targets = tuple(r for r in entry.targets if here(r))
            related = tuple(r for r in entry.related if here(r))
            if targets or related:
                prefer = entry.prefer if entry.prefer and here(entry.prefer) else None
                update = {"targets": targets, "related": related, "prefer": prefer}
                entries.append(entry.model_copy(update=update))
        return Glossary(entries=tuple(entries))


_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def resolve_placeholders(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``{{name}}`` whose ``name`` is in ``values`` replaced by its value
    (others are left as they are)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def placeholders(text: str) -> set[str]:
    """The names of the ``{{name}}`` placeholders in ``text``."""
    return set(_PLACEHOLDER.findall(text))


def parse_glossary(data: Any, origin: str = "<glossary>") -> Glossary:
    """Validate already-decoded JSON; errors name ``origin``, the entry index and the field."""
    if isinstance(data, list):
        data = {"entries": data}
    try:
        return Glossary.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:10]:
            where = ".".join(str(p) for p in err["loc"])
            problems.append(f"{where}: {err['msg']}")
        raise GlossaryError(f"invalid glossary {origin}: " + "; ".join(problems)) from None


def load_glossary(path: str | Path) -> Glossary:
    """Read a glossary file. Missing file → empty glossary and one warning."""
    file = Path(path)
    if not file.exists():
        logger.warning("glossary file %s not found; continuing with an empty glossary", file)
        return Glossary()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GlossaryError(
            f"invalid glossary {file}: not JSON ({exc.msg} at line {exc.lineno}, "
            f"column {exc.colno})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError(f"cannot read glossary {file}: {exc}") from None
    return parse_glossary(data, str(file))
