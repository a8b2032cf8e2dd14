"""Snapshot files of the two heavy signals, so a warm start rebuilds neither.

Vector signal (:class:`~schemaseek.signals.vector.VectorIndex`):

* ``vectors.npy`` — the float32 store in slot order, little-endian, mapped without copying;
* ``vector_slots.json`` — the id of each slot (``null`` for a dead slot);
* ``ann_graph.faiss`` — the built HNSW graph in faiss's own index format
  (``faiss.serialize_index``, the in-memory form of ``write_index``), read back with
  ``faiss.read_index`` (or ``deserialize_index`` from bytes): at 100K vectors building it takes
  minutes, reading it a fraction of a second.

Keyword signal (:class:`~schemaseek.signals.keyword.KeywordIndex`):

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
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from schemaseek.signals import keyword as keyword_module
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex, faiss
from schemaseek.snapshots.arrays import RecordReader, encode_records, npy_bytes, npy_view
from schemaseek.snapshots.manager import VerifiedGeneration
from schemaseek.snapshots.manifest import SnapshotError

__all__ = ["GRAPH", "keyword_files", "restore_keyword", "restore_vectors", "vector_files"]

VECTORS = "vectors.npy"
SLOTS = "vector_slots.json"
GRAPH = "ann_graph.faiss"
KEYWORD_DIR = "keyword/"
KEYWORD_STATE = "keyword_state.json"
KEYWORD_TEXTS = "keyword_texts.bin"
KEYWORD_OFFSETS = "keyword_texts.offsets.npy"


def vector_files(index: VectorIndex) -> dict[str, bytes]:
    """The files of ``index`` (a consistent copy taken under its lock)."""
    with index._lock:
        size = index._size
        rows = np.array(index._store[:size], dtype="<f4", copy=True)
        alive = index._alive[:size]
        slots = [d if alive[i] else None for i, d in enumerate(index._slot_ids[:size])]
        graph = None if index._graph is None else faiss.serialize_index(index._graph).tobytes()
    meta = {"dimensions": index.dimensions, "slots": slots}
    files = {VECTORS: npy_bytes(rows), SLOTS: json.dumps(meta, ensure_ascii=False).encode()}
    if graph is not None:
        files[GRAPH] = graph
    return files


def restore_vectors(generation: VerifiedGeneration, **params: Any) -> VectorIndex:
    """A :class:`VectorIndex` over the generation's vectors (mapped, not copied) and graph."""
    meta = json.loads(bytes(generation.read(SLOTS)))
    dimensions = int(meta["dimensions"])
    slots: list[str | None] = list(meta["slots"])
    rows = npy_view(generation.read(VECTORS), "<f4", 2)
    if rows.shape != (len(slots), dimensions):
        raise SnapshotError(
            f"vectors have shape {rows.shape}, expected ({len(slots)}, {dimensions})"
        )
    index = VectorIndex(dimensions, **params)
    index._store = rows  # read-only; the first add copies it (capacity == size)
    index._alive = np.fromiter((s is not None for s in slots), dtype=bool, count=len(slots))
    index._size = len(slots)
    index._slot_ids = [s or "" for s in slots]
    index._slot_of = {s: slot for slot, s in enumerate(slots) if s is not None}
    if len(index._slot_of) != int(index._alive.sum()):
        raise SnapshotError("vector slots name the same document twice")
    if GRAPH in generation.files:
        path = generation.local_paths.get(GRAPH)
        if path is not None:
            graph = faiss.read_index(str(path))
        else:
            graph = faiss.deserialize_index(np.frombuffer(generation.read(GRAPH), dtype=np.uint8))
        if graph.ntotal != index._size or graph.d != dimensions:
            raise SnapshotError("the ANN graph does not match the vectors")
        graph.hnsw.efSearch = index.ef_search
        index._graph = graph
    return index


def keyword_files(index: KeywordIndex) -> dict[str, bytes]:
    """The files of ``index``: a fresh on-disk tantivy index plus its bookkeeping."""
    with index._lock:
        items = list(index._entries.items())
        entries = [(doc_id, key, index._resolve(doc_id, texts)) for doc_id, (key, texts) in items]
        state = {
            "next_key": index._next_key,
            "ids": [doc_id for doc_id, _, _ in entries],
            "keys": [key for _, key, _ in entries],
            "term_refs": dict(index._term_refs),
        }
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="schemaseek-keyword-save-") as scratch:
        disk = tantivy.Index(index._schema, path=scratch)
        writer = disk.writer(heap_size=keyword_module._WRITER_HEAP_BYTES, num_threads=1)
        for doc_id, key, texts in entries:
            writer.add_document(index._tantivy_document(doc_id, key, texts))
        writer.commit()
        writer.wait_merging_threads()
        for name in sorted(os.listdir(scratch)):
            if not name.endswith(".lock"):
                files[KEYWORD_DIR + name] = Path(scratch, name).read_bytes()
    texts_data, offsets = encode_records(list(texts) for _, _, texts in entries)
    files[KEYWORD_STATE] = json.dumps(state, ensure_ascii=False).encode()
    files[KEYWORD_TEXTS] = texts_data
    files[KEYWORD_OFFSETS] = offsets
    return files


def restore_keyword(
    files: Mapping[str, memoryview],
    field_weights: Mapping[str, float] | None = None,
    prefix_min_results: int = 5,
) -> KeywordIndex:
    """A :class:`KeywordIndex` opened on a private copy of the saved tantivy directory."""
    try:
        state = json.loads(bytes(files[KEYWORD_STATE]))
        reader = RecordReader(files[KEYWORD_TEXTS], files[KEYWORD_OFFSETS])
    except KeyError as exc:
        raise SnapshotError(f"generation lacks the keyword file {exc}") from None
    ids: list[str] = state["ids"]
    keys: list[int] = state["keys"]
    if len(ids) != len(keys) or len(reader) != len(ids):
        raise SnapshotError("keyword state and texts disagree on the number of documents")
    workdir = tempfile.TemporaryDirectory(prefix="schemaseek-keyword-")
    for name, data in files.items():
        if name.startswith(KEYWORD_DIR):
            Path(workdir.name, name[len(KEYWORD_DIR) :]).write_bytes(data)
    index = KeywordIndex(field_weights, prefix_min_results)
    weakref.finalize(index, workdir.cleanup)
    try:
        disk = tantivy.Index(index._schema, path=workdir.name, reuse=True)
        disk.reload()
    except (ValueError, OSError) as exc:
        raise SnapshotError(f"the keyword index cannot be opened: {exc}") from None
    index._index = disk
    index._writer = disk.writer(heap_size=keyword_module._WRITER_HEAP_BYTES, num_threads=1)
    index._searcher = disk.searcher()
    if index._searcher.num_docs != len(ids):
        raise SnapshotError("the keyword index holds another number of documents")
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    index._entries = {doc_id: (key, ()) for doc_id, key in zip(ids, keys, strict=True)}
    index._id_of = {key: doc_id for doc_id, key in zip(ids, keys, strict=True)}
    index._unloaded = set(ids)
    index._texts_of = lambda doc_id: tuple(reader.get(position[doc_id]))
    index._term_refs = {str(t): int(n) for t, n in state["term_refs"].items()}
    index._vocabulary = sorted(index._term_refs)
    index._next_key = int(state["next_key"])
    return index
