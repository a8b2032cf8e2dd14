"""Seeded fuzzing: no request gets a 5xx, and the server is healthy afterwards.

:mod:`tests.service.fuzzing` generates 2,100 requests from a fixed seed: every RPC of the
contract (and the health and reflection services), Connect JSON and binary, GET and POST,
raw gRPC frames over HTTP/2, malformed bodies, frames and headers, and the requests that once
crashed or stalled the server (deep JSON nesting, 30,000 filter patterns, unknown sources,
an unsupported GET compression). The only 5xx allowed is the one the protocol prescribes when
the client's own deadline (``connect-timeout-ms``) runs out: 504 ``deadline_exceeded``.
``bench/fuzz.py`` runs the same generator for 50,000 requests and more. Fuzzed admin calls
may change the server (an empty glossary is a valid update), so it gets a server of its own.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import serving_demo
from tests.service.fuzzing import FuzzRequest, requests, send
from tests.service.harness import ADMIN_TOKEN, SEARCH_TOKEN, ServerProcess

SEED = 15
COUNT = 2_100
FRESH_CONNECTIONS_EVERY = 500  # Hypercorn closes a connection after 1,000 requests


def client_deadline(request: FuzzRequest, reply: httpx.Response) -> bool:
    """A 504 the client asked for: its own deadline ran out."""
    asked = "connect-timeout-ms" in request.headers or "grpc-timeout" in request.headers
    return reply.status_code == 504 and asked and "deadline_exceeded" in reply.text


@pytest.fixture()
def fuzz_server(warm_snapshots: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    yield from serving_demo(warm_snapshots, tmp_path)


def test_seeded_requests_never_get_a_5xx(fuzz_server: ServerProcess) -> None:
    demo_server = fuzz_server
    statuses: collections.Counter[int] = collections.Counter()
    labels: collections.Counter[str] = collections.Counter()
    failures: list[tuple[str, str, int, str]] = []
    clients: dict[bool, httpx.Client] = {}
    try:
        for number, request in enumerate(requests(SEED, COUNT, ADMIN_TOKEN)):
            if number % FRESH_CONNECTIONS_EVERY == 0:
                for old in clients.values():
                    old.close()
                clients = {
                    False: httpx.Client(base_url=demo_server.url, timeout=30),
                    True: httpx.Client(
                        base_url=demo_server.url, timeout=30, http1=False, http2=True
                    ),
                }
            reply = send(clients[request.http2], request)
            statuses[reply.status_code] += 1
            labels[request.label] += 1
            if reply.status_code >= 500 and not client_deadline(request, reply):
                failures.append((request.label, request.path, reply.status_code, reply.text[:200]))
            json_error = reply.headers.get("content-type", "").startswith("application/json")
            if 400 <= reply.status_code < 500 and json_error and request.method != "HEAD":
                assert set(reply.json()) >= {"code", "message"}, (request, reply.text)
    finally:
        for client in clients.values():
            client.close()
    assert failures == []
    assert sum(statuses.values()) == COUNT >= 2_000
    assert {"json", "proto", "get", "grpc", "stream", "deep", "patterns", "404"} <= set(labels)
    assert demo_server.proc.poll() is None
    assert demo_server.http.get("/health/ready").json()["status"] == "ready"
    answer = demo_server.rpc(
        "/schemaseek.v1.SearchService/Search", {"query": "royalty payments"}, SEARCH_TOKEN
    )
    assert answer.status_code == 200 and answer.json()["results"]
