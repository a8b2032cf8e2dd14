"""VectorIndex: exact vs HNSW-SQ8 agreement, incremental updates, tombstones, validation."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from schemaseek.errors import EmbeddingError
from schemaseek.signals.vector import VectorIndex, faiss

HALF = 2e-3  # cosines of half-precision rows are within this of the float32 ones
DIM = 384
Array = npt.NDArray[np.float32]


def clustered(n: int, seed: int, clusters: int = 100, rank: int = 24) -> Array:
    """Unit vectors in ``clusters`` groups, each spread over a low-rank subspace (as
    sentence embeddings are: low intrinsic dimension around topic centres)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    bases = rng.standard_normal((clusters, rank, DIM)).astype(np.float32) / np.sqrt(DIM)
    labels = rng.integers(0, clusters, n)
    coefs = rng.standard_normal((n, rank)).astype(np.float32) * 0.5
    x = centres[labels] + np.einsum("nr,nrd->nd", coefs, bases[labels])
    x += 0.02 * rng.standard_normal((n, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    out: Array = x.astype(np.float32)
    return out


def exact_top(vectors: Array, query: Array, k: int) -> list[int]:
    top: list[int] = np.argsort(-(vectors @ query), kind="stable")[:k].tolist()
    return top


def ids_of(hits: list[tuple[str, float]]) -> list[str]:
    return [doc_id for doc_id, _ in hits]


@pytest.fixture(scope="module")
def big() -> tuple[VectorIndex, Array, Array]:
    data = clustered(12_200, seed=1)
    vectors, queries = data[:12_000], data[12_000:]
    index = VectorIndex(DIM, exact_threshold=5_000)
    index.add([f"v{i}" for i in range(len(vectors))], vectors)
    return index, vectors, queries


def test_hnsw_agrees_with_exact_search(big: tuple[VectorIndex, Array, Array]) -> None:
    index, vectors, queries = big
    assert not index.graph_built
    recalls: list[float] = []
    for query in queries:
        hits = index.search(query, 10)
        assert index.graph_built
        truth = {f"v{i}" for i in exact_top(vectors, query, 10)}
        recalls.append(len(truth & set(ids_of(hits))) / 10)
        for doc_id, score in hits:  # re-scored: the cosine of the stored half-precision row
            assert score == pytest.approx(float(vectors[int(doc_id[1:])] @ query), abs=HALF)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
    assert float(np.mean(recalls)) >= 0.99


def test_exact_path_matches_numpy() -> None:
    vectors = clustered(2_000, seed=2)
    index = VectorIndex(DIM)
    index.add([f"v{i}" for i in range(len(vectors))], vectors)
    query = vectors[7] + 0.1 * vectors[8]
    query /= np.linalg.norm(query)
    hits = index.search(query, 25)
    assert ids_of(hits) == [f"v{i}" for i in exact_top(vectors, query, 25)]
    assert hits[0][1] == pytest.approx(float(vectors[int(hits[0][0][1:])] @ query), abs=HALF)
    assert not index.graph_built
    all_scores = index.scores_all(query)
    assert all_scores.shape == (2_000,)
    np.testing.assert_allclose(all_scores, vectors @ query, atol=HALF)
    sampled = index.sample_scores(query, 500)  # every 4th row of the store
    np.testing.assert_allclose(sampled, vectors[::4] @ query, atol=HALF)
    index.remove(["v0", "v1"])
    np.testing.assert_allclose(index.sample_scores(query, 500), vectors[4::4] @ query, atol=HALF)
    assert index.sample_scores(query, 0).shape == (0,)


def test_small_and_empty_indexes() -> None:
    index = VectorIndex(4)
    assert index.search(np.ones(4, np.float32), 5) == []
    assert len(index) == 0
    index.add(["a", "b"], np.array([[1, 0, 0, 0], [0, 2, 0, 0]], np.float32))
    assert ids_of(index.search(np.array([0, 1, 0, 0], np.float32), 10)) == ["b", "a"]
    assert index.search(np.array([0, 1, 0, 0], np.float32), 0) == []
    vector = index.vector("b")
    assert vector is not None
    np.testing.assert_allclose(vector, [0, 1, 0, 0])  # stored normalised
    assert index.vector("zzz") is None
    index.add(["z"], np.zeros((1, 4), np.float32))  # zero vector stays zero, scores 0
    assert dict(index.search(np.array([0, 0, 1, 0], np.float32), 3))["z"] == 0.0


@pytest.mark.parametrize("threshold", [1, 10_000])
def test_add_replace_remove(threshold: int) -> None:
    vectors = clustered(3_000, seed=3)
    index = VectorIndex(DIM, exact_threshold=threshold)
    index.add([f"v{i}" for i in range(2_000)], vectors[:2_000])
    index.build()
    assert index.graph_built
    # adds after the graph exists go into it incrementally
    index.add([f"v{i}" for i in range(2_000, 3_000)], vectors[2_000:])
    assert len(index) == 3_000 and "v2999" in index
    for i in (5, 2_500, 2_999):
        assert index.search(vectors[i], 1)[0][0] == f"v{i}"
    # replace: the id follows its new vector
    index.add(["v5"], vectors[[2_600]])
    assert len(index) == 3_000 and index.tombstones == 1
    assert set(ids_of(index.search(vectors[2_600], 2))) == {"v5", "v2600"}
    assert "v5" not in ids_of(index.search(vectors[5], 5))
    # remove
    index.remove(["v2500", "missing"])
    assert "v2500" not in index and len(index) == 2_999
    assert "v2500" not in ids_of(index.search(vectors[2_500], 10))
    assert index.vector("v2500") is None
    assert index.scores_all(vectors[0]).shape == (2_999,)
    # duplicates inside one call: the last one wins
    index.add(["dup", "dup"], vectors[[10, 20]])
    assert set(ids_of(index.search(vectors[20], 2))) == {"dup", "v20"}


def test_tombstones_trigger_compaction_and_rebuild() -> None:
    data = clustered(4_050, seed=4)
    vectors, queries = data[:4_000], data[4_000:]
    index = VectorIndex(DIM, exact_threshold=1_000)
    index.add([f"v{i}" for i in range(4_000)], vectors)
    index.search(vectors[0], 5)
    assert index.graph_built
    index.remove([f"v{i}" for i in range(0, 1_000)])  # exactly 25 %: tombstones kept
    assert index.graph_built and index.tombstones == 1_000
    hits = index.search(vectors[500], 20)
    assert all(int(doc_id[1:]) >= 1_000 for doc_id in ids_of(hits))
    index.remove(["v1000"])  # over 25 %: compacted, graph dropped
    assert not index.graph_built and index.tombstones == 0 and len(index) == 2_999
    live = vectors[1_001:]
    recalls: list[float] = []
    for query in queries:
        truth = {f"v{i + 1_001}" for i in exact_top(live, query, 10)}
        recalls.append(len(truth & set(ids_of(index.search(query, 10)))) / 10)
    assert index.graph_built
    assert float(np.mean(recalls)) >= 0.99
    assert index.search(vectors[1_500], 1)[0][0] == "v1500"


def test_one_by_one_adds_stay_searchable() -> None:
    vectors = clustered(3_000, seed=6)
    index = VectorIndex(DIM)
    for i in range(3_000):
        index.add([f"v{i}"], vectors[i : i + 1])
    assert len(index) == 3_000
    assert index.search(vectors[2_999], 1)[0][0] == "v2999"
    assert index.search(vectors[0], 1)[0][0] == "v0"


def test_rows_are_stored_in_half_precision() -> None:
    """A stored vector is its row rounded to float16: within 1e-3 of the normalised input."""
    vectors = clustered(10, seed=8)
    index = VectorIndex(DIM)
    index.add([f"v{i}" for i in range(10)], vectors)
    stored = index.vector("v3")
    assert stored is not None and stored.dtype == np.float32
    np.testing.assert_array_equal(stored, vectors[3].astype(np.float16).astype(np.float32))


def test_query_path_restores_omp_threads(big: tuple[VectorIndex, Array, Array]) -> None:
    index, _, queries = big
    before = faiss.omp_get_max_threads()
    index.search(queries[0], 10)
    assert faiss.omp_get_max_threads() == before


def test_shape_and_value_errors() -> None:
    index = VectorIndex(8)
    with pytest.raises(EmbeddingError, match=r"shape \(2, 8\)"):
        index.add(["a", "b"], np.zeros((2, 7), np.float32))
    with pytest.raises(EmbeddingError, match="shape"):
        index.add(["a", "b"], np.zeros((3, 8), np.float32))
    with pytest.raises(EmbeddingError, match="shape"):
        index.add(["a"], np.zeros(8, np.float32))
    with pytest.raises(EmbeddingError, match="NaN"):
        index.add(["a"], np.full((1, 8), np.nan, np.float32))
    index.add(["a"], np.ones((1, 8), np.float64))  # other float dtypes are converted
    with pytest.raises(EmbeddingError, match=r"shape \(8,\)"):
        index.search(np.zeros(9, np.float32), 3)
    with pytest.raises(EmbeddingError):
        index.search(np.zeros((2, 8), np.float32), 3)
    with pytest.raises(EmbeddingError):
        index.scores_all(np.zeros(3, np.float32))
    with pytest.raises(EmbeddingError):
        VectorIndex(0)
    assert ids_of(index.search(np.ones((1, 8), np.float32), 3)) == ["a"]


def test_search_among_scores_only_the_given_ids() -> None:
    vectors = clustered(3_000, seed=5)
    index = VectorIndex(DIM)
    index.add([f"v{i}" for i in range(len(vectors))], vectors)
    index.remove(["v3"])
    query = vectors[10]
    subset = list(range(0, 3_000, 7))
    wanted = [f"v{i}" for i in subset] + ["v3", "unknown"]  # removed and unknown ids are skipped
    hits = index.search_among(query, wanted, 12)
    live = [i for i in subset if i != 3]
    expected = [live[j] for j in exact_top(vectors[live], query, 12)]
    assert ids_of(hits) == [f"v{i}" for i in expected]
    assert hits[0][1] == pytest.approx(float(vectors[expected[0]] @ query), abs=1e-5)
    assert len(index.search_among(query, ["v1", "v2"], 12)) == 2
    assert index.search_among(query, ["unknown"], 5) == []
    assert index.search_among(query, ["v1"], 0) == []
