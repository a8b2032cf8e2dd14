"""File names and byte formats of the two heavy signals, so a warm start rebuilds neither.

The signals persist themselves: :meth:`VectorIndex.to_files
<schemaseek.signals.vector.VectorIndex.to_files>` / ``from_files`` and :meth:`KeywordIndex.to_files
<schemaseek.signals.keyword.KeywordIndex.to_files>` / ``from_files`` take and install their own
state; this module only encodes and decodes the bytes. Malformed files raise
:class:`~schemaseek.arrays.FileFormatError`, a :class:`~schemaseek.errors.SnapshotError`.

Vector signal:

* ``vectors.npy`` — the half-precision store in slot order, little-endian (float32 in
  generations written before; both are read);
* ``vector_slots.json`` — the id of each slot (``null`` for a dead slot);
* ``ann_graph.faiss`` — the built HNSW graph in faiss's own index format
  (``faiss.serialize_index``, the in-memory form of ``write_index``), read back with
  ``faiss.read_index`` (or ``deserialize_index`` from bytes): at 100K vectors building it takes
  minutes, reading it a fraction of a second.

Keyword signal:

* ``keyword/…`` — a tantivy index directory, built at save time from the analysed texts (no
  re-tokenising); loading copies it into a private working folder and opens it there;
* ``keyword_state.json`` — integer keys, per-term document counts, the next key;
* ``keyword_texts.bin`` + ``.offsets.npy`` — each document's analysed texts, read lazily when
  the document is next replaced or removed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from schemaseek.arrays import FileFormatError, RecordReader, encode_records, npy_bytes, npy_view
from schemaseek.signals.vector_kernels import Vectors, faiss

__all__ = [
    "GRAPH",
    "KEYWORD_DIR",
    "KEYWORD_OFFSETS",
    "KEYWORD_STATE",
    "KEYWORD_TEXTS",
    "SLOTS",
    "VECTORS",
    "Files",
    "KeywordState",
    "decode_keyword",
    "decode_vectors",
    "encode_keyword",
    "encode_vectors",
    "open_keyword_directory",
    "read_graph",
]

VECTORS = "vectors.npy"
SLOTS = "vector_slots.json"
GRAPH = "ann_graph.faiss"
KEYWORD_DIR = "keyword/"
KEYWORD_STATE = "keyword_state.json"
KEYWORD_TEXTS = "keyword_texts.bin"
KEYWORD_OFFSETS = "keyword_texts.offsets.npy"

Files = Mapping[str, memoryview | bytes]


def _required_file(files: Files, name: str) -> memoryview | bytes:
    try:
        return files[name]
    except KeyError:
        raise FileFormatError(f"generation lacks the file {name!r}") from None


# -- vector signal ----------------------------------------------------------------------------


def encode_vectors(
    dimensions: int, rows: Vectors, slots: Sequence[str | None], graph: bytes | None
) -> dict[str, bytes]:
    """The files of a vector store: ``rows`` in slot order, the id of each slot (None: dead)
    and the serialised graph, if any."""
    meta = {"dimensions": dimensions, "slots": list(slots)}
    files = {VECTORS: npy_bytes(rows), SLOTS: json.dumps(meta, ensure_ascii=False).encode()}
    if graph is not None:
        files[GRAPH] = graph
    return files


def decode_vectors(files: Files) -> tuple[int, Vectors, list[str | None]]:
    """``(dimensions, rows, slots)``: the rows (float16, or float32 from older generations)
    are a read-only view of the given bytes."""
    meta = json.loads(bytes(_required_file(files, SLOTS)))
    dimensions = int(meta["dimensions"])
    slots: list[str | None] = list(meta["slots"])
    data = _required_file(files, VECTORS)
    try:
        rows = npy_view(data, "<f2", 2)
    except FileFormatError:  # float32 rows, written before the half-precision store
        rows = npy_view(data, "<f4", 2)
    if rows.shape != (len(slots), dimensions):
        raise FileFormatError(
            f"vectors have shape {rows.shape}, expected ({len(slots)}, {dimensions})"
        )
    return dimensions, rows, slots


def read_graph(files: Files, local_paths: Mapping[str, Path] | None) -> Any:
    """The saved faiss graph (read from its local file when there is one), or None."""
    if GRAPH not in files:
        return None
    path = (local_paths or {}).get(GRAPH)
    if path is not None:
        return faiss.read_index(str(path))
    return faiss.deserialize_index(np.frombuffer(files[GRAPH], dtype=np.uint8))


# -- keyword signal ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeywordState:
    """A keyword index's bookkeeping besides tantivy's files: documents (id and integer key,
    in index order), per-term document counts and the next key to hand out."""

    ids: list[str]
    keys: list[int]
    term_refs: dict[str, int]
    next_key: int


def encode_keyword(
    schema: Any,
    documents: Iterable[Any],
    state: KeywordState,
    texts: Iterable[Sequence[str]],
    heap_size: int,
) -> dict[str, bytes]:
    """The files of a keyword index: a fresh on-disk tantivy index of ``documents`` (tantivy
    documents of ``schema``), ``state``, and each document's analysed ``texts``."""
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="schemaseek-keyword-save-") as scratch:
        disk = tantivy.Index(schema, path=scratch)
        writer = disk.writer(heap_size=heap_size, num_threads=1)
        for document in documents:
            writer.add_document(document)
        writer.commit()
        writer.wait_merging_threads()
        for name in sorted(os.listdir(scratch)):
            if not name.endswith(".lock"):
                files[KEYWORD_DIR + name] = Path(scratch, name).read_bytes()
    texts_data, offsets = encode_records(list(t) for t in texts)
    meta = {
        "next_key": state.next_key,
        "ids": state.ids,
        "keys": state.keys,
        "term_refs": state.term_refs,
    }
    files[KEYWORD_STATE] = json.dumps(meta, ensure_ascii=False).encode()
    files[KEYWORD_TEXTS] = texts_data
    files[KEYWORD_OFFSETS] = offsets
    return files


def decode_keyword(files: Files) -> tuple[KeywordState, RecordReader]:
    """The saved state and a lazy reader of the documents' texts (record ``i``: ``ids[i]``)."""
    try:
        meta = json.loads(bytes(files[KEYWORD_STATE]))
        reader = RecordReader(files[KEYWORD_TEXTS], files[KEYWORD_OFFSETS])
    except KeyError as exc:
        raise FileFormatError(f"generation lacks the keyword file {exc}") from None
    ids: list[str] = meta["ids"]
    keys: list[int] = meta["keys"]
    if len(ids) != len(keys) or len(reader) != len(ids):
        raise FileFormatError("keyword state and texts disagree on the number of documents")
    term_refs = {str(t): int(n) for t, n in meta["term_refs"].items()}
    return KeywordState(ids, keys, term_refs, int(meta["next_key"])), reader


def open_keyword_directory(
    schema: Any, files: Files
) -> tuple[Any, tempfile.TemporaryDirectory[str]]:
    """The saved tantivy index, opened on a private copy of its directory (the caller keeps
    the returned folder alive as long as the index and removes it afterwards)."""
    workdir = tempfile.TemporaryDirectory(prefix="schemaseek-keyword-")
    for name, data in files.items():
        if name.startswith(KEYWORD_DIR):
            Path(workdir.name, name[len(KEYWORD_DIR) :]).write_bytes(data)
    try:
        disk = tantivy.Index(schema, path=workdir.name, reuse=True)
        disk.reload()
    except (ValueError, OSError) as exc:
        workdir.cleanup()
        raise FileFormatError(f"the keyword index cannot be opened: {exc}") from None
    return disk, workdir
