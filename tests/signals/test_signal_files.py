"""The signals persist themselves: ``to_files`` → ``from_files`` serves identical results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from schemaseek.arrays import FileFormatError, npy_bytes
from schemaseek.documents import DocKind, Document
from schemaseek.errors import SnapshotError
from schemaseek.signals import files as signal_files
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.vector import VectorIndex
from schemaseek.text import tokenize

Array = npt.NDArray[np.float32]
DIM = 32

TEXTS = [
    "Invoices issued to customers, one row per invoice",
    "Invoice lines: one row per track sold on an invoice",
    "Royalty payments made to artists each quarter",
    "Artists and the labels they are signed to",
    "Tracks with their album, genre and media type",
    "Customer support tickets and their status",
    "Payment methods saved by customers",
    "Refunds issued against invoice payments",
    "Tax rates by country and region",
    "Daily stream counts aggregated per track and territory",
]
QUERIES = [
    "invoice",
    "royalty payments to artists",
    "customer payment refunds",
    "tax rate by country",
    "territ",  # prefix fallback only
    "stream track",
    "nothing matches this",
]


def _doc(doc_id: str, description: str, name: str = "") -> Document:
    return Document(
        id=doc_id,
        kind=DocKind.SQL_TABLE,
        source="test",
        name=name or doc_id,
        description=description,
    )


def _keyword_results(index: KeywordIndex) -> list[list[tuple[str, float]]]:
    return [index.search(tokenize(q), 20) for q in QUERIES]


def _keyword_index() -> KeywordIndex:
    index = KeywordIndex({"members": 0.5}, prefix_min_results=3)
    index.add([_doc(f"db.t{i}", text) for i, text in enumerate(TEXTS)])
    index.add([_doc("db.t2", "Royalty statements sent to artists every quarter")])  # replaced
    index.remove(["db.t5", "unknown"])  # 2 deletions > 5 % of 9: rebuilt, statistics fresh
    return index


@pytest.mark.parametrize("as_memoryview", [True, False])
def test_keyword_round_trip_searches_identically(as_memoryview: bool) -> None:
    original = _keyword_index()
    files = original.to_files()
    assert signal_files.KEYWORD_STATE in files
    assert any(name.startswith(signal_files.KEYWORD_DIR) for name in files)
    given = {n: memoryview(d) for n, d in files.items()} if as_memoryview else files
    restored = KeywordIndex.from_files(given, field_weights={"members": 0.5}, prefix_min_results=3)
    assert set(restored) == set(original) and len(restored) == len(original) == 9
    assert _keyword_results(restored) == _keyword_results(original)
    assert restored.expand_prefixes(["inv"]) == original.expand_prefixes(["inv"])
    # the same later changes (which read the unloaded texts of the touched documents)
    for index in (original, restored):
        index.add([_doc("db.t0", "Invoices and credit notes"), _doc("db.t10", "Territories")])
        index.remove(["db.t7", "db.t8"])
    assert _keyword_results(restored) == _keyword_results(original)
    again, saved = restored.to_files(), original.to_files()
    for name in (signal_files.KEYWORD_STATE, signal_files.KEYWORD_TEXTS):
        assert again[name] == saved[name]


def test_keyword_files_hold_a_fresh_index_of_the_live_documents() -> None:
    """Deletions below the rebuild threshold still count in tantivy's statistics (see the
    keyword module); the saved index is built anew from the live documents, so it scores as
    a fresh index of them does."""
    docs = [_doc(f"db.t{i}", f"{TEXTS[i % len(TEXTS)]} part {i}") for i in range(60)]
    original = KeywordIndex()
    original.add(docs)
    original.remove(["db.t4", "db.t9"])  # 2 stale <= 5 % of 58: no rebuild
    restored = KeywordIndex.from_files(original.to_files())
    fresh = KeywordIndex()
    fresh.add([d for d in docs if d.id not in {"db.t4", "db.t9"}])
    assert _keyword_results(restored) == _keyword_results(fresh)
    assert set(restored) == set(original)


def test_keyword_files_of_a_restored_index_reopen() -> None:
    original = _keyword_index()
    restored = KeywordIndex.from_files(original.to_files())  # texts left unloaded
    twice = KeywordIndex.from_files(restored.to_files())
    assert [twice.search(tokenize(q), 20) for q in QUERIES] == [
        restored.search(tokenize(q), 20) for q in QUERIES
    ]


def test_keyword_rejects_malformed_files() -> None:
    files = _keyword_index().to_files()
    lacking = {n: d for n, d in files.items() if n != signal_files.KEYWORD_TEXTS}
    with pytest.raises(FileFormatError, match="lacks the keyword file"):
        KeywordIndex.from_files(lacking)
    fewer = KeywordIndex()
    fewer.add([_doc("x", "one document")])
    mixed = {**fewer.to_files(), signal_files.KEYWORD_STATE: files[signal_files.KEYWORD_STATE]}
    with pytest.raises(FileFormatError, match="disagree"):
        KeywordIndex.from_files(mixed)
    # a SnapshotError: SnapshotManager.load then tries an older generation
    assert issubclass(FileFormatError, SnapshotError)
    with pytest.raises(SnapshotError, match="lacks the keyword file"):
        KeywordIndex.from_files({n: memoryview(d) for n, d in lacking.items()})
    assert KeywordIndex.from_files(files).search(tokenize("invoice"), 5)


def _vectors(n: int, seed: int) -> Array:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def _vector_results(index: VectorIndex, queries: Array) -> list[list[tuple[str, float]]]:
    return [index.search(q, 10) for q in queries]


def test_vector_exact_round_trip_with_tombstones() -> None:
    rows = _vectors(40, seed=1)
    original = VectorIndex(DIM, exact_threshold=1_000)
    original.add([f"v{i}" for i in range(40)], rows)
    original.add(["v3"], _vectors(1, seed=2))  # replaced: a tombstone
    original.remove(["v5", "unknown"])
    assert original.tombstones == 2
    files = original.to_files()
    assert set(files) == {signal_files.VECTORS, signal_files.SLOTS}
    restored = VectorIndex.from_files(
        {n: memoryview(d) for n, d in files.items()}, exact_threshold=1_000
    )
    assert set(restored) == set(original) and restored.tombstones == 2
    queries = _vectors(8, seed=3)
    assert _vector_results(restored, queries) == _vector_results(original, queries)
    vector, expected = restored.vector("v3"), original.vector("v3")
    assert vector is not None and expected is not None and np.array_equal(vector, expected)
    # the restored store is read-only bytes: the first add copies it
    for index in (original, restored):
        index.add(["new"], _vectors(1, seed=4))
        index.remove(["v7"])
    assert _vector_results(restored, queries) == _vector_results(original, queries)


@pytest.mark.parametrize("local", [False, True])
def test_vector_hnsw_round_trip(local: bool, tmp_path: Path) -> None:
    rows = _vectors(600, seed=5)
    original = VectorIndex(DIM, exact_threshold=100, m=8, ef_construction=40, ef_search=16)
    original.add([f"v{i}" for i in range(600)], rows)
    original.build()
    original.add([f"w{i}" for i in range(20)], _vectors(20, seed=6))  # added to the graph
    original.add(["v1"], _vectors(1, seed=7))  # replaced
    original.remove([f"v{i}" for i in range(10, 30)])
    assert original.graph_built and original.tombstones == 21
    files = original.to_files()
    assert signal_files.GRAPH in files
    local_paths = None
    if local:
        path = tmp_path / signal_files.GRAPH
        path.write_bytes(files[signal_files.GRAPH])
        local_paths = {signal_files.GRAPH: path}
    restored = VectorIndex.from_files(
        files,
        local_paths=local_paths,
        exact_threshold=100,
        m=8,
        ef_construction=40,
        ef_search=16,
    )
    assert restored.graph_built and restored.tombstones == 21
    queries = _vectors(12, seed=8)
    assert _vector_results(restored, queries) == _vector_results(original, queries)
    for index in (original, restored):
        index.add([f"x{i}" for i in range(5)], _vectors(5, seed=9))
        index.remove(["w3"])
    assert _vector_results(restored, queries) == _vector_results(original, queries)


def test_vector_rejects_malformed_files() -> None:
    original = VectorIndex(DIM, exact_threshold=10)
    original.add([f"v{i}" for i in range(30)], _vectors(30, seed=10))
    original.build()
    files = original.to_files()
    with pytest.raises(FileFormatError, match=r"lacks the file 'vectors\.npy'"):
        VectorIndex.from_files({signal_files.SLOTS: files[signal_files.SLOTS]})
    short = {**files, signal_files.VECTORS: npy_bytes(_vectors(29, seed=11))}
    with pytest.raises(FileFormatError, match="shape"):
        VectorIndex.from_files(short)
    twice = b'{"dimensions": 32, "slots": ' + b'["a", "a"' + b', "b"' * 28 + b"]}"
    with pytest.raises(FileFormatError, match="same document twice"):
        VectorIndex.from_files({**files, signal_files.SLOTS: twice})
    smaller = VectorIndex(DIM, exact_threshold=10)
    smaller.add([f"v{i}" for i in range(20)], _vectors(20, seed=12))
    smaller.build()
    other_graph = {**files, signal_files.GRAPH: smaller.to_files()[signal_files.GRAPH]}
    with pytest.raises(FileFormatError, match="graph does not match"):
        VectorIndex.from_files(other_graph)
    with pytest.raises(SnapshotError, match="graph does not match"):
        VectorIndex.from_files({n: memoryview(d) for n, d in other_graph.items()})
