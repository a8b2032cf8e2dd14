"""The OpenAI-compatible provider against a local ``/v1/embeddings`` server backed by the real
ONNX model: vectors, credentials, strict dimensions, deadline, batching and concurrency."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest

from schemaseek.embedding.factory import create_provider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.embedding.openai_compat import OpenAICompatibleProvider
from schemaseek.engine import SourceEngine
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.snapshots.fingerprint import fingerprint_of
from schemaseek.snapshots.manager import SnapshotManager
from schemaseek.snapshots.memory import MemoryStore
from tests.engine.fakes import catalog
from tests.helpers.http import FakeAPI

KEY_ENV = "SCHEMASEEK_TEST_EMBEDDINGS_KEY"
SECRET = "sk-test-9f8e7d6c5b4a"


class EmbeddingServer(FakeAPI):
    """A threaded HTTP server speaking ``POST /v1/embeddings`` with the real local model."""

    def __init__(self, model: OnnxEmbeddingProvider) -> None:
        super().__init__(wait=True)
        self.model = model
        self.truncate: int | None = None  # answer with vectors of this size
        self.delay_s = 0.0
        self.fail = False
        self.batch_sizes: list[int] = []
        self.auth: list[str | None] = []

    def respond(self, request: BaseHTTPRequestHandler) -> None:
        body = self.body(request)
        texts = body["input"]
        self.batch_sizes.append(len(texts))
        self.auth.append(request.headers.get("Authorization"))
        time.sleep(self.delay_s if len(texts) == 1 else 0.02)
        if self.fail or request.path != "/v1/embeddings":
            payload, status = b'{"error": "unavailable"}', 503
        else:
            vectors = self.model.embed(texts)
            if self.truncate is not None:
                vectors = vectors[:, : self.truncate]
            data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
            data.reverse()  # clients must order by "index"
            payload, status = json.dumps({"data": data, "model": body["model"]}).encode(), 200
        self.answer(request, status, payload)


@pytest.fixture()
def server(onnx_provider: OnnxEmbeddingProvider) -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(onnx_provider)
    srv.thread.start()
    yield srv
    srv.stop()


@pytest.fixture()
def remote(
    server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OpenAICompatibleProvider]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    provider = OpenAICompatibleProvider(
        "all-MiniLM-L6-v2", dimensions=384, base_url=server.base_url, api_key_env=KEY_ENV
    )
    yield provider
    provider.close()


def test_vectors_match_the_local_model(
    remote: OpenAICompatibleProvider, onnx_provider: OnnxEmbeddingProvider, server: EmbeddingServer
) -> None:
    texts = ["royalty payments", "customer orders", "warehouse stock levels"]
    np.testing.assert_allclose(remote.embed(texts), onnx_provider.embed(texts), atol=1e-6)
    np.testing.assert_allclose(
        remote.embed_query("royalty payments"),
        onnx_provider.embed_query("royalty payments"),
        atol=1e-6,
    )
    assert server.auth and set(server.auth) == {f"Bearer {SECRET}"}


def test_batches_of_64_with_two_in_flight(
    remote: OpenAICompatibleProvider, server: EmbeddingServer
) -> None:
    texts = [f"table number {i} with columns" for i in range(300)]
    seen: list[int] = []
    remote.max_in_flight = 2  # the pool holds 4 threads: the bound applies below it
    vectors = remote.embed(texts, seen.append)
    assert vectors.shape == (300, 384)
    assert sorted(server.batch_sizes) == sorted([64, 64, 64, 64, 44])
    assert server.max_in_flight == 2
    assert seen[-1] == 300 and seen == sorted(seen)


def test_key_is_never_written_anywhere(
    remote: OpenAICompatibleProvider, caplog: pytest.LogCaptureFixture, server: EmbeddingServer
) -> None:
    caplog.set_level(logging.DEBUG)
    fingerprint = fingerprint_of(remote)
    assert fingerprint.base_url == server.base_url and fingerprint.provider == "openai"
    store = MemoryStore()
    engine = SourceEngine(
        "shop", lambda: catalog(20), provider=remote, snapshots=SnapshotManager(store)
    )
    engine.init(wait=True)
    server.fail = True
    engine.search("customer payments")  # a failing query is logged
    engine.destroy()
    written = b"".join(bytes(store.read(k)) for k in store.stored_keys())
    for text in (
        repr(remote),
        json.dumps(fingerprint.to_dict()),
        caplog.text,
        written.decode("latin-1"),
    ):
        assert SECRET not in text
    assert KEY_ENV in repr(remote)


def test_unset_key_sends_no_header(
    server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with OpenAICompatibleProvider(
        "m", dimensions=384, base_url=server.base_url, api_key_env=KEY_ENV
    ) as p:
        p.embed(["x"])
    assert server.auth == [None]


def test_wrong_dimensions_are_rejected_and_search_stays_lexical(
    remote: OpenAICompatibleProvider, server: EmbeddingServer
) -> None:
    server.truncate = 256
    with pytest.raises(EmbeddingError, match="256 dimensions; 384 are required"):
        remote.embed(["a table"])
    engine = SourceEngine("shop", lambda: catalog(30), provider=remote)
    report = engine.init(wait=True).result()
    assert report.embedded == 0 and report.degraded and "256" in (report.error or "")
    response = engine.search("customer payment")
    assert response.degraded and response.hits
    assert engine.index.built and engine.index.vector_count == 0 and engine.index.degraded
    engine.destroy()


def test_query_deadline(server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    assert OpenAICompatibleProvider("m").query_timeout_s == 2.0  # the default deadline
    server.delay_s = 1.0
    with OpenAICompatibleProvider(
        "m", dimensions=384, base_url=server.base_url, api_key_env=KEY_ENV, query_timeout_s=0.3
    ) as provider:
        started = time.perf_counter()
        with pytest.raises(EmbeddingError, match=r"longer than 0\.3 s"):
            provider.embed_query("slow question")
        assert time.perf_counter() - started < 0.9


def test_http_errors_and_config(server: EmbeddingServer) -> None:
    server.fail = True
    provider = OpenAICompatibleProvider("m", dimensions=384, base_url=server.base_url)
    with provider, pytest.raises(EmbeddingError, match="HTTP 503"):
        provider.embed(["x"])
    with pytest.raises(ConfigError):
        OpenAICompatibleProvider("m", base_url="ftp://nowhere")
    made = create_provider("openai", model="m", dimensions=8, base_url=server.base_url)
    assert isinstance(made, OpenAICompatibleProvider) and made.dimensions == 8
    made.close()
    with pytest.raises(EmbeddingError, match="closed"):
        made.embed(["x"])
