"""Schema sources: read a GraphQL schema or SQL catalog into documents and graph edges."""

from schemaseek.documents import Edge
from schemaseek.sources.base import SourceSchema

__all__ = ["Edge", "SourceSchema"]
