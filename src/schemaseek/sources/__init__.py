"""Schema sources: read a GraphQL schema or SQL catalog into documents and graph edges."""

from schemaseek.sources.base import Edge, SourceSchema

__all__ = ["Edge", "SourceSchema"]
