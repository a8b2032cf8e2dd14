"""One federated search: one query embedding per embedding model, one deadline, and an
unknown source named as such (not "no engine can serve")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from schemaseek.embedding.base import Vectors
from schemaseek.errors import DeadlineExceededError, EmbeddingError, UnknownSourceError
from schemaseek.federation import federated_search, serving
from schemaseek.index import SchemaIndex
from schemaseek.query.filters import SearchFilter
from schemaseek.query.shared import Deadline, SharedQuery
from schemaseek.sources.demo import demo_graphql, demo_sql
from tests.engine.fakes import HashProvider

QUESTION = "royalty payments for Sony"


class SlowProvider(HashProvider):
    """Query embeddings wait until the test releases them."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.finished = threading.Event()

    def embed_query(self, text: str) -> Vectors:
        vector = super().embed_query(text)
        self.release.wait(30)
        self.finished.set()
        return vector


def _pair(provider: HashProvider) -> list[SchemaIndex]:
    indexes = [SchemaIndex([s], provider=provider) for s in (demo_graphql(), demo_sql())]
    for index in indexes:
        index.build()
    return indexes


@pytest.fixture(scope="module")
def pair() -> tuple[list[SchemaIndex], HashProvider]:
    provider = HashProvider()
    return _pair(provider), provider


@pytest.fixture()
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(2) as executor:
        yield executor


def test_one_query_embedding_for_indexes_of_one_model(
    pair: tuple[list[SchemaIndex], HashProvider],
) -> None:
    indexes, provider = pair
    provider.reset()
    answer = federated_search(serving(indexes), "artists paid by label", limit=5)
    assert provider.query_calls == 1  # each index's own cache used to embed it again
    assert not answer.degraded and {h.hit.document.source for h in answer.hits} >= {"music_db"}


def test_one_deadline_for_the_whole_search(pool: ThreadPoolExecutor) -> None:
    """A provider slower than the deadline: the search stops waiting at the deadline, both
    indexes answer from keywords, and the provider was asked once (not once per index)."""
    provider = SlowProvider()
    indexes = _pair(provider)
    provider.reset()
    try:
        answer = federated_search(
            serving(indexes), QUESTION, limit=5, deadline=Deadline(0.2), executor=pool
        )
        assert not provider.finished.is_set()  # answered while the embedding still ran
    finally:
        provider.release.set()
    assert answer.degraded and answer.hits
    assert provider.query_calls == 1


def test_a_passed_deadline_asks_no_index(pair: tuple[list[SchemaIndex], HashProvider]) -> None:
    indexes, provider = pair
    provider.reset()
    with pytest.raises(DeadlineExceededError):
        federated_search(serving(indexes), QUESTION, limit=5, deadline=Deadline(0))
    assert provider.query_calls == 0


def test_a_failed_embedding_is_not_retried_by_the_next_index(
    pair: tuple[list[SchemaIndex], HashProvider],
) -> None:
    indexes, provider = pair
    provider.reset()
    provider.fail = True
    try:
        answer = federated_search(serving(indexes), "an uncached question", limit=5)
    finally:
        provider.fail = False
    assert answer.degraded and provider.query_calls == 1


def test_shared_vector_is_computed_once_per_fingerprint() -> None:
    first, second, other = HashProvider(), HashProvider(), HashProvider(model_id="another")
    shared = SharedQuery("question")
    assert (shared.vector(first) == shared.vector(second)).all()
    shared.vector(other)
    assert (first.query_calls, second.query_calls, other.query_calls) == (1, 0, 1)
    failing = HashProvider(model_id="down")
    failing.fail = True
    for _ in range(2):
        with pytest.raises(RuntimeError):
            shared.vector(failing)
    assert failing.query_calls == 1 and shared.embeddings == 3


def test_no_time_left_for_the_embedding(pool: ThreadPoolExecutor) -> None:
    shared = SharedQuery("question", deadline=Deadline(0), executor=pool)
    with pytest.raises(EmbeddingError):
        shared.vector(HashProvider())


def test_an_unknown_source_is_named(pair: tuple[list[SchemaIndex], HashProvider]) -> None:
    indexes, _ = pair
    with pytest.raises(UnknownSourceError, match="nope"):
        federated_search(
            serving(indexes), QUESTION, limit=5, search_filter=SearchFilter(sources=("nope",))
        )


def test_deadline_within_takes_the_earliest() -> None:
    assert Deadline.within(None, None).remaining() is None
    left = Deadline.within(None, 5.0, 60.0).remaining()
    assert left is not None and 0 < left <= 5.0
    assert Deadline(0).expired and not Deadline(None).expired
