"""schemaseek: hybrid schema search for GraphQL APIs and SQL catalogs.

The public API::

    from schemaseek import SchemaIndex, load_sdl, load_sql, load_glossary

    index = SchemaIndex([load_sdl("schema.graphql"), load_sql("sqlite:///music.db")],
                        glossary=load_glossary("glossary.json"))
    index.build()
    response = index.search("royalty payments for Sony", limit=5)
    for hit in response.hits:
        print(hit.id, hit.document.kind, hit.score, hit.explanation.to_dict())
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemaseek.documents import DocKind, Document, Explanation, Hit, Related, SearchResponse
from schemaseek.errors import (
    ConfigError,
    EmbeddingError,
    GlossaryError,
    MissingExtraError,
    SchemaSeekError,
    SourceError,
)

if TYPE_CHECKING:
    from schemaseek.config import SearchSettings
    from schemaseek.glossary import Glossary, load_glossary
    from schemaseek.index import SchemaIndex
    from schemaseek.sources.graphql import load_introspection, load_sdl
    from schemaseek.sources.sql import load_sql

__version__ = "0.1.0"

_LAZY = {
    "SearchSettings": "schemaseek.config",
    "Glossary": "schemaseek.glossary",
    "load_glossary": "schemaseek.glossary",
    "SchemaIndex": "schemaseek.index",
    "load_sdl": "schemaseek.sources.graphql",
    "load_introspection": "schemaseek.sources.graphql",
    "load_sql": "schemaseek.sources.sql",
}


def __getattr__(name: str) -> Any:
    """Heavy modules (pydantic, tantivy, faiss, onnxruntime, SQLAlchemy) load on first use, so
    that ``schemaseek --version`` and the command line start quickly."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'schemaseek' has no attribute {name!r}")


__all__ = [
    "ConfigError",
    "DocKind",
    "Document",
    "EmbeddingError",
    "Explanation",
    "Glossary",
    "GlossaryError",
    "Hit",
    "MissingExtraError",
    "Related",
    "SchemaIndex",
    "SchemaSeekError",
    "SearchResponse",
    "SearchSettings",
    "SourceError",
    "load_glossary",
    "load_introspection",
    "load_sdl",
    "load_sql",
]
