"""Cold builds against a remote model (TEI, vLLM ...): the OpenAI-compatible provider batches,
keeps a bounded number of requests in flight, keeps input order whatever order the answers come
back in, splits batches the server refuses as too large, and still checks dimensions strictly.
The server is a local fake that counts requests and concurrent requests."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np
import pytest

from schemaseek.config import SearchSettings
from schemaseek.embedding.factory import provider_from_settings
from schemaseek.embedding.openai_compat import OpenAICompatibleProvider
from schemaseek.errors import EmbeddingError
from tests.helpers.http import FakeAPI

DIMENSIONS = 8


def fake_vector(text: str, dimensions: int = DIMENSIONS) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).normal(size=dimensions).astype(np.float32)
    return vector / np.linalg.norm(vector)


class FakeServer(FakeAPI):
    """``POST /v1/embeddings`` with fake vectors; counts requests and requests in flight.

    ``gate``: the first ``gate`` requests wait until that many are in progress at once (a
    barrier: proves the client really keeps that many in flight). Answers to later batches
    come back sooner than to earlier ones, and every answer lists its rows in reverse.
    """

    def __init__(self, *, gate: int = 0, max_batch: int | None = None, dims: int = DIMENSIONS):
        super().__init__()
        self.max_batch = max_batch
        self.dims = dims
        self.requests: list[int] = []  # batch sizes answered with vectors
        self.refused = 0
        self._barrier = threading.Barrier(gate) if gate else None
        self._arrived = 0

    def respond(self, request: BaseHTTPRequestHandler) -> None:
        with self.lock:  # the arrival order, counted on entry (not when answered)
            first = self._arrived
            self._arrived += 1
        texts = self.body(request)["input"]
        if self._barrier is not None and first < self._barrier.parties:
            self._barrier.wait(timeout=30)
        if self.max_batch is not None and len(texts) > self.max_batch:
            with self.lock:
                self.refused += 1
            self.answer(request, 413, b'{"error": "batch size too large"}')
            return
        position = int(texts[0].rsplit(" ", 1)[1])
        time.sleep(max(0.0, 0.05 - position / 2000))  # later batches answer sooner
        data = [
            {"index": i, "embedding": fake_vector(t, self.dims).tolist()}
            for i, t in enumerate(texts)
        ]
        with self.lock:
            self.requests.append(len(texts))
        self.answer(request, 200, json.dumps({"data": data[::-1], "model": "fake"}).encode())


@pytest.fixture()
def make_server() -> Iterator[Any]:
    started: list[FakeServer] = []

    def make(**options: Any) -> FakeServer:
        server = FakeServer(**options)
        server.thread.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def texts(count: int) -> list[str]:
    return [f"table number {i}" for i in range(count)]


def expected(items: list[str]) -> np.ndarray:
    return np.stack([fake_vector(t) for t in items])


def test_batches_run_concurrently_up_to_the_bound_in_input_order(make_server: Any) -> None:
    server = make_server(gate=3)
    items = texts(95)
    seen: list[int] = []
    with OpenAICompatibleProvider(
        "fake", dimensions=DIMENSIONS, base_url=server.base_url, batch_size=10, max_in_flight=3
    ) as provider:
        vectors = provider.embed(items, seen.append)
    assert sorted(server.requests) == [5] + [10] * 9
    assert server.max_in_flight == 3  # reached (the gate waits for 3), never exceeded
    np.testing.assert_allclose(vectors, expected(items), atol=1e-6)
    assert seen == sorted(seen) and seen[-1] == 95


def test_the_bound_comes_from_the_settings(make_server: Any) -> None:
    server = make_server(gate=2)
    settings = SearchSettings(
        embedding_provider="openai",
        embedding_base_url=server.base_url,
        embedding_dimensions=DIMENSIONS,
        embedding_batch_size=4,
        embedding_max_in_flight=2,
    )
    provider = provider_from_settings(settings)
    assert isinstance(provider, OpenAICompatibleProvider)
    try:
        items = texts(20)
        np.testing.assert_allclose(provider.embed(items), expected(items), atol=1e-6)
    finally:
        provider.close()
    assert provider.max_in_flight == 2 and server.max_in_flight == 2
    assert len(server.requests) == 5
    assert SearchSettings().embedding_max_in_flight == 4


def test_batches_refused_as_too_large_are_split(make_server: Any) -> None:
    server = make_server(max_batch=16)
    items = texts(100)
    with OpenAICompatibleProvider(
        "fake", dimensions=DIMENSIONS, base_url=server.base_url, batch_size=64, max_in_flight=2
    ) as provider:
        vectors = provider.embed(items)
    np.testing.assert_allclose(vectors, expected(items), atol=1e-6)
    assert max(server.requests) <= 16 and sum(server.requests) == 100
    assert server.refused >= 2  # each 64-batch was refused, then its 32-halves


def test_dimensions_stay_strict_under_concurrency(make_server: Any) -> None:
    server = make_server(dims=DIMENSIONS - 1)
    with (
        OpenAICompatibleProvider(
            "fake", dimensions=DIMENSIONS, base_url=server.base_url, batch_size=5, max_in_flight=4
        ) as provider,
        pytest.raises(EmbeddingError, match="7 dimensions; 8 are required"),
    ):
        provider.embed(texts(40))
