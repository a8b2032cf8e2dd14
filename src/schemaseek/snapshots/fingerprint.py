"""The embedding-space fingerprint: what must be equal for stored vectors to be reused.

It covers the provider kind, the model id, the vector dimensions, the query prefix, the base
URL of a remote provider (redacted: never its credentials) and the document format — the shape
of the text that gets embedded, detected from :meth:`Document.embedding_text` of a fixed
sample, so a change to that method changes the fingerprint by itself. Generations live under
a directory named after the fingerprint; a change of any field means a different directory, a
full re-embed, and vectors of two spaces are never mixed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from schemaseek.documents import DocKind, Document
from schemaseek.sources.redact import redact_url

__all__ = ["DOCUMENT_FORMAT", "EmbeddingFingerprint", "fingerprint_of", "innermost_provider"]

_FORMAT_VERSION = "schemaseek-doc/2"  # 2: mutation and subscription root fields say so
_SAMPLE = Document(
    id="Sample.item",
    kind=DocKind.GRAPHQL_FIELD,
    source="sample",
    name="item",
    description="A sample description.",
    members=("first Int", "second String"),
    context="Glossary context.",
)
DOCUMENT_FORMAT = (
    _FORMAT_VERSION
    + ":"
    + hashlib.sha256(_SAMPLE.embedding_text().encode("utf-8")).hexdigest()[:16]
)
"""Version of the embedded text's format; follows :meth:`Document.embedding_text`."""

_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class EmbeddingFingerprint:
    """Identity of one embedding space (no secrets: API keys are never part of it)."""

    provider: str
    model: str
    dimensions: int
    query_prefix: str = ""
    document_format: str = DOCUMENT_FORMAT
    base_url: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EmbeddingFingerprint:
        """Inverse of :meth:`to_dict`; raises ``KeyError``/``TypeError`` on a bad shape."""
        return cls(
            provider=str(data["provider"]),
            model=str(data["model"]),
            dimensions=int(data["dimensions"]),
            query_prefix=str(data.get("query_prefix", "")),
            document_format=str(data["document_format"]),
            base_url=str(data.get("base_url", "")),
        )

    @property
    def digest(self) -> str:
        """SHA-256 of the canonical JSON of every field."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def key(self) -> str:
        """The directory name: a readable model slug, the dimensions and 12 digest digits."""
        slug = _SLUG.sub("-", self.model.lower()).strip("-")[:48] or "model"
        return f"{slug}-{self.dimensions}-{self.digest[:12]}"


def innermost_provider(provider: object) -> object:
    """Follow ``.provider`` through wrappers (cache, counting, breaker, disk cache)."""
    seen = 0
    while seen < 16:
        inner = getattr(provider, "provider", None)
        if inner is None or not hasattr(inner, "embed"):
            return provider
        provider, seen = inner, seen + 1
    return provider


def fingerprint_of(provider: Any) -> EmbeddingFingerprint:
    """The fingerprint of ``provider`` (any :class:`EmbeddingProvider`, wrapped or not).

    The provider kind is its ``provider_name`` attribute when it has one, else its class name;
    ``query_prefix`` and ``base_url`` are read when present.
    """
    inner = innermost_provider(provider)
    name = getattr(inner, "provider_name", None) or type(inner).__name__
    return EmbeddingFingerprint(
        provider=str(name),
        model=str(provider.model_id),
        dimensions=int(provider.dimensions),
        query_prefix=str(getattr(inner, "query_prefix", "") or ""),
        base_url=redact_url(base_url) if (base_url := getattr(inner, "base_url", "")) else "",
    )
