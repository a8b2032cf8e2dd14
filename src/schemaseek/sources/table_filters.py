"""Which tables a SQL source loads: an allowlist and a blocklist over table ids.

A pattern is either a **prefix** of the table id (``FACTS.PROD``, ``sales.``), compared
case-insensitively, or a **regular expression** written ``re:<regex>``, searched
case-insensitively in the table id. The table id is the qualified name search results show
(``schema.table``, ``DB.SCHEMA.TABLE`` for Snowflake and attached DuckDB catalogs, the bare
name in SQLite's ``main``).

A table is loaded when the allowlist is empty or one of its patterns matches, **and** no
blocklist pattern matches: the blocklist always wins. Filters apply at fetch time: the
reflection of a blocked table (columns, keys, comments) is never requested.

:data:`DEFAULT_BLOCKLIST` holds the scratch-table conventions and is active unless a caller
turns it off (``default_block=False``); patterns given by the user are added to it:

* ``re:(?:^|\\.)(?:TEMP|TMP|TEST|STAGING|ROLLBACK)(?=[_\\-.\\d]|$)`` — any part of the id (a
  database, a schema or a table) that is one of these words, alone or followed by ``_``, ``-``
  or a digit: ``TEMP_ORDERS``, ``tmp``, ``TEST.sales``, ``staging_2024``, ``ROLLBACK1``. Words
  that merely start the same way survive: ``TEMPERATURE``, ``TESTIMONIAL``, ``TMPL``.
* ``re:(?:^|\\.)[TXZ]\\d{1,3}(?:_[^.]*)?$`` — a table name made of a scratch letter (``T``,
  ``X`` or ``Z``) and one to three digits, alone or before ``_``: ``T1``, ``T1_ORDERS``,
  ``x2_copy``, ``Z10_BACKUP`` (ad-hoc copies). It applies to the last part only (a schema such as
  ``t1`` is not blocked). Other letters are left alone on purpose: ``PM25_DAILY``, ``SO2_``,
  ``O3_``, ``V2_1_1_EXOMES``, ``CS10_GFF`` are real tables in public catalogs (102 of them in
  Spider 2.0-Snow, needed by 8 of its questions), and so are ``T_1`` and ``T1000``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from schemaseek.errors import ConfigError

__all__ = ["DEFAULT_BLOCKLIST", "TableFilter"]

DEFAULT_BLOCKLIST: tuple[str, ...] = (
    r"re:(?:^|\.)(?:TEMP|TMP|TEST|STAGING|ROLLBACK)(?=[_\-.\d]|$)",
    r"re:(?:^|\.)[TXZ]\d{1,3}(?:_[^.]*)?$",
)
"""The spec's blocklist of scratch names (module docstring)."""

_REGEX_PREFIX = "re:"


@dataclass(frozen=True, slots=True)
class _Pattern:
    text: str
    prefix: str | None
    regex: re.Pattern[str] | None

    def matches(self, table_id: str) -> bool:
        if self.regex is not None:
            return self.regex.search(table_id) is not None
        assert self.prefix is not None
        return table_id.casefold().startswith(self.prefix)


def _compile(pattern: str) -> _Pattern:
    if pattern.startswith(_REGEX_PREFIX):
        body = pattern[len(_REGEX_PREFIX) :]
        try:
            return _Pattern(pattern, None, re.compile(body, re.IGNORECASE))
        except re.error as exc:
            raise ConfigError(f"invalid table filter regex {body!r}: {exc}") from None
    if not pattern:
        raise ConfigError("an empty table filter pattern matches every table; remove it")
    return _Pattern(pattern, pattern.casefold(), None)


@dataclass(frozen=True, slots=True)
class TableFilter:
    """Allow and block patterns (module docstring); ``TableFilter()`` applies the defaults."""

    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    default_block: bool = True

    @classmethod
    def create(
        cls,
        allow: Iterable[str] | None = None,
        block: Iterable[str] | None = None,
        default_block: bool = True,
    ) -> TableFilter:
        """Build and validate a filter (``ConfigError`` for a bad regex or empty pattern)."""
        made = cls(tuple(allow or ()), tuple(block or ()), default_block)
        made.compiled()
        return made

    @classmethod
    def none(cls) -> TableFilter:
        """A filter that lets every table through (no defaults)."""
        return cls((), (), False)

    @property
    def blocklist(self) -> tuple[str, ...]:
        """The effective blocklist: the defaults (unless turned off) plus the user's."""
        return (*DEFAULT_BLOCKLIST, *self.block) if self.default_block else self.block

    def compiled(self) -> tuple[tuple[_Pattern, ...], tuple[_Pattern, ...]]:
        return _compiled(self.allow, self.blocklist)

    def allows(self, table_id: str) -> bool:
        """Whether ``table_id`` is loaded: allowed (or no allowlist) and not blocked."""
        allow, block = self.compiled()
        if allow and not any(p.matches(table_id) for p in allow):
            return False
        return not any(p.matches(table_id) for p in block)

    def blocked_by(self, table_id: str) -> str | None:
        """The first pattern that keeps ``table_id`` out, ``"allowlist"`` when no allow
        pattern matches, or ``None`` when the table is loaded."""
        allow, block = self.compiled()
        hit = next((p.text for p in block if p.matches(table_id)), None)
        if hit is not None:
            return hit
        if allow and not any(p.matches(table_id) for p in allow):
            return "allowlist"
        return None

    def may_allow_schema(self, schema: str) -> bool:
        """False when no table of ``schema`` can pass because every allow pattern is a prefix
        naming other schemas (``allow=["sales."]`` skips schema ``crm`` unread)."""
        allow, _ = self.compiled()
        prefixes = [p.prefix for p in allow if p.prefix is not None]
        if not allow or len(prefixes) < len(allow):
            return True
        head = schema.casefold() + "."
        return any(head.startswith(p) or p.startswith(head) for p in prefixes)

    def select(self, table_ids: Sequence[str]) -> list[str]:
        """The ids that pass, in their given order."""
        return [t for t in table_ids if self.allows(t)]


_CACHE: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[tuple[_Pattern, ...], ...]] = {}


def _compiled(
    allow: tuple[str, ...], block: tuple[str, ...]
) -> tuple[tuple[_Pattern, ...], tuple[_Pattern, ...]]:
    key = (allow, block)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        found = (tuple(map(_compile, allow)), tuple(map(_compile, block)))
        _CACHE[key] = found
    return found[0], found[1]
