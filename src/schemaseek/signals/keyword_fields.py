"""Document analysis for the keyword signal: the tokens of each of its four text fields.

``name`` holds the document's name plus the last segments of its id, then ``description``,
``members`` and ``context``, all analysed by :func:`schemaseek.text.tokenize`; tokens that
tantivy would drop (empty or over-long) are removed here, on documents and queries alike.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from schemaseek.documents import Document
from schemaseek.text import normalize_identifier, tokenize

__all__ = [
    "FIELDS",
    "ID_SEGMENTS",
    "MAX_TOKEN_BYTES",
    "MIN_PREFIX_LENGTH",
    "field_tokens",
    "keep_tokens",
    "prefix_extensions",
]

FIELDS: tuple[str, ...] = ("name", "description", "members", "context")
ID_SEGMENTS = 2
# Longer tokens are dropped on both sides; no schema word is this long, and tantivy itself
# silently drops terms over 65,530 bytes.
MAX_TOKEN_BYTES = 255
_ID_SPLIT = re.compile(r"[.:/#]+")


def keep_tokens(tokens: Iterable[str]) -> list[str]:
    """Tokens as indexed: empty and over-long tokens removed (applied to docs and queries)."""
    return [t for t in tokens if t and len(t.encode("utf-8")) <= MAX_TOKEN_BYTES]


def field_tokens(doc: Document) -> dict[str, list[str]]:
    """The analysed tokens of each keyword field of ``doc``.

    ``name`` gets the document's name followed by the last :data:`ID_SEGMENTS` segments of its
    id (split on ``.``, ``:``, ``/``, ``#``) that differ from the name, so a column also
    matches its table's name and a GraphQL field its parent type.
    """
    own = normalize_identifier(doc.name)
    segments = [s for s in _ID_SPLIT.split(doc.id) if s][-ID_SEGMENTS:]
    extra = [s for s in segments if normalize_identifier(s) != own]
    return {
        "name": keep_tokens(tokenize(" ".join([doc.name, *extra]))),
        "description": keep_tokens(tokenize(doc.description)),
        "members": keep_tokens(tokenize(" ".join(doc.members))),
        "context": keep_tokens(tokenize(doc.context)),
    }


MIN_PREFIX_LENGTH = 3
_PREFIX_SCAN_LIMIT = 2_000


def prefix_extensions(vocabulary: Sequence[str], terms: Sequence[str], most: int) -> list[str]:
    """The terms of the sorted ``vocabulary`` that extend a query term of at least
    ``MIN_PREFIX_LENGTH`` characters (not the query terms themselves): per query term, the
    ``most`` shortest (ties alphabetical) among the first few thousand extensions."""
    own = set(terms)
    out: dict[str, None] = {}
    for term in terms:
        if len(term) < MIN_PREFIX_LENGTH:
            continue
        at = bisect.bisect_left(vocabulary, term)
        found: list[str] = []
        while at < len(vocabulary) and len(found) < _PREFIX_SCAN_LIMIT:
            candidate = vocabulary[at]
            if not candidate.startswith(term):
                break
            if candidate not in own:
                found.append(candidate)
            at += 1
        found.sort(key=lambda t: (len(t), t))
        out.update(dict.fromkeys(found[:most]))
    return list(out)
