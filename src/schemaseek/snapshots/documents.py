"""Documents in a snapshot: JSON records read lazily, and a source's list that fills itself."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from schemaseek.arrays import RecordReader
from schemaseek.documents import DocKind, Document
from schemaseek.snapshots.manifest import SnapshotError

__all__ = ["LazyDocuments", "SourceDocuments", "document_from_record", "document_record"]


def document_record(doc: Document) -> dict[str, Any]:
    """``doc`` as a JSON-ready dict (``data`` must be JSON-serialisable)."""
    return {
        "id": doc.id,
        "kind": doc.kind.value,
        "source": doc.source,
        "name": doc.name,
        "description": doc.description,
        "members": list(doc.members),
        "context": doc.context,
        "target": doc.target,
        "data": doc.data,
    }


def document_from_record(record: Mapping[str, Any]) -> Document:
    """Inverse of :func:`document_record`."""
    return Document(
        id=record["id"],
        kind=DocKind(record["kind"]),
        source=record["source"],
        name=record["name"],
        description=record["description"],
        members=tuple(record["members"]),
        context=record["context"],
        target=record["target"],
        data=record["data"],
    )


class LazyDocuments(Mapping[str, Document]):
    """Documents by id, parsed from a record file on first access (thread-safe)."""

    def __init__(self, ids: Sequence[str], hashes: Sequence[str], reader: RecordReader) -> None:
        if not len(ids) == len(hashes) == len(reader):
            raise SnapshotError("document ids, hashes and records disagree in number")
        self._ids = list(ids)
        self._position = {doc_id: i for i, doc_id in enumerate(self._ids)}
        if len(self._position) != len(self._ids):
            raise SnapshotError("document ids are not unique")
        self._hashes = list(hashes)
        self._reader = reader
        self._cache: dict[str, Document] = {}
        self._raw_context: dict[str, str] = {}
        self._lock = threading.Lock()

    def __getitem__(self, doc_id: str) -> Document:
        found = self._cache.get(doc_id)
        if found is not None:
            return found
        position = self._position[doc_id]  # KeyError for unknown ids, as a dict would
        record = self._reader.get(position)
        doc = document_from_record(record)
        if doc.id != doc_id:
            raise SnapshotError(f"document record {position} is {doc.id!r}, not {doc_id!r}")
        with self._lock:
            self._cache[doc_id] = doc
            if "raw_context" in record:
                self._raw_context[doc_id] = record["raw_context"]
        return doc

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def content_hash(self, doc_id: str) -> str:
        """The stored content hash (no parsing)."""
        return self._hashes[self._position[doc_id]]

    def source_document(self, doc_id: str) -> Document:
        """The document as its source produced it (before glossary context was added)."""
        doc = self[doc_id]
        raw = self._raw_context.get(doc_id)
        return doc if raw is None else dataclasses.replace(doc, context=raw)


class SourceDocuments(list[Document]):
    """A source's document list that parses itself from a snapshot on first use.

    Every ``list`` method (reading or writing, comparisons and ``repr`` included) fills the
    list first, so it behaves as the plain list it stands for.
    """

    def __init__(self, documents: LazyDocuments) -> None:
        super().__init__()
        self._lazy: LazyDocuments | None = documents
        self._filling = threading.Lock()

    def _fill(self) -> None:
        if self._lazy is None:
            return
        with self._filling:
            if self._lazy is not None:
                list.extend(self, (self._lazy.source_document(d) for d in self._lazy))
                self._lazy = None

    def __bool__(self) -> bool:
        self._fill()
        return list.__len__(self) > 0


def _filling(name: str) -> Any:
    method = getattr(list, name)

    def wrapper(self: SourceDocuments, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        return method(self, *args, **kwargs)

    wrapper.__name__ = name
    wrapper.__doc__ = method.__doc__
    return wrapper


for _name in (
    "__iter__", "__len__", "__getitem__", "__contains__", "__reversed__", "__eq__", "__ne__",
    "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__add__", "__mul__", "__rmul__",
    "__iadd__", "__imul__", "__setitem__", "__delitem__", "append", "extend", "insert",
    "remove", "pop", "clear", "index", "count", "sort", "reverse", "copy",
):  # fmt: skip
    setattr(SourceDocuments, _name, _filling(_name))
