"""A locally cached catalog for the client's keyword-only fallback (spec 003 "Graceful
degradation": when the service is unreachable, callers fall back to keyword search).

:class:`OfflineSchemaCache` keeps each source's schema as the service sent it from ``GetSchema``
(GraphQL SDL, SQL table catalog) in ``<directory>/<source>.json``, refreshed conditionally by
hash. :meth:`OfflineSchemaCache.search` answers from a keyword + glossary-free index built from
those files (no model, no network), with ``degraded`` set.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from schemaseek.errors import SourceError
from schemaseek.index import SchemaIndex
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.sources.base import SourceSchema

__all__ = ["OfflineSchemaCache"]


def _table_dict(table: pb.SqlTable) -> dict[str, Any]:
    return {
        "id": table.id,
        "name": table.name,
        "schema": table.schema or None,
        "database": table.database or None,
        "is_view": table.is_view,
        "description": table.description,
        "columns": [
            {
                "name": c.name,
                "type": c.type,
                "description": c.description,
                "primary_key": c.primary_key,
                "nullable": c.nullable,
            }
            for c in table.columns
        ],
        "primary_key": list(table.primary_key),
        "foreign_keys": [
            {
                "name": fk.name or None,
                "columns": list(fk.columns),
                "ref_table": fk.ref_table,
                "ref_name": fk.ref_table.rsplit(".", 1)[-1],
                "ref_columns": list(fk.ref_columns),
            }
            for fk in table.foreign_keys
        ],
    }


class OfflineSchemaCache:
    """Cached schemas of ``sources`` under ``directory``; see the module docstring."""

    def __init__(self, directory: str | Path, sources: Sequence[str]) -> None:
        self.directory = Path(directory)
        self.sources = list(sources)
        self._index: SchemaIndex | None = None
        self._lock = threading.Lock()

    def _file(self, source: str) -> Path:
        return self.directory / f"{quote(source, safe='')}.json"

    def known_hash(self, source: str) -> str:
        """The hash of the cached copy of ``source`` ("" when none)."""
        data = self._read(source)
        return str(data.get("hash", "")) if data else ""

    def store(self, response: pb.GetSchemaResponse) -> None:
        """Keep a changed schema (atomically); unchanged answers keep the cached copy."""
        if not response.changed:
            return
        data: dict[str, Any] = {
            "source": response.source,
            "kind": response.kind,
            "hash": response.hash,
            "sdl": response.sdl,
            "tables": [_table_dict(t) for t in response.tables],
        }
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{uuid.uuid4().hex}")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False)
        os.replace(tmp, self._file(response.source))
        with self._lock:
            self._index = None

    def _read(self, source: str) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self._file(source).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data

    def _schemas(self) -> list[SourceSchema]:
        out = []
        for source in self.sources:
            data = self._read(source)
            if data is None:
                continue
            if data.get("kind") == "graphql" and data.get("sdl"):
                from graphql import build_schema

                from schemaseek.sources.graphql import from_schema

                out.append(from_schema(build_schema(data["sdl"]), source))
            elif data.get("kind") == "sql":
                from schemaseek.sources.sql import build_sql_schema

                out.append(build_sql_schema(list(data.get("tables") or []), source))
        return out

    def index(self) -> SchemaIndex:
        """The keyword index over every cached source (built once per change)."""
        with self._lock:
            if self._index is None:
                schemas = self._schemas()
                if not schemas:
                    raise SourceError(f"no cached catalog in {self.directory}")
                index = SchemaIndex(schemas, provider=None)
                index.build()
                self._index = index
            return self._index

    def search(self, request: pb.SearchRequest) -> pb.SearchResponse:
        """A keyword-only answer from the cache (``degraded``; no cursor, no query id)."""
        include = list(request.filter.include) if request.filter else []
        exclude = list(request.filter.exclude) if request.filter else []
        response = self.index().search(
            request.query,
            limit=request.limit or 10,
            mode="keyword",
            kinds=list(request.kinds),
            sources=list(request.sources),
            include=include,
            exclude=exclude,
        )
        return pb.SearchResponse(
            results=[
                pb.SearchResult(
                    id=hit.id,
                    kind=hit.document.kind.value,
                    source=hit.document.source,
                    score=hit.score,
                    name=hit.document.name,
                    description=hit.document.description,
                )
                for hit in response.hits
            ],
            degraded=True,
            mode="keyword",
            took_ms=response.took_ms,
        )
