"""Malformed and random requests never get a 5xx, and the server keeps serving.

Hypothesis draws at least 2,000 requests (bodies, headers, content types, paths, methods,
HTTP/1.1 and HTTP/2) against the demo server on loopback; bounded in count and time.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.service.harness import ADMIN_TOKEN, SEARCH_TOKEN, ServerProcess

REQUESTS = 2_100
PATHS = [
    "/schemaseek.v1.SearchService/Search",
    "/schemaseek.v1.SearchService/GetSchema",
    "/schemaseek.v1.SearchService/ReportUsage",
    "/schemaseek.v1.SearchService/Nope",
    "/schemaseek.v1.AdminService/GetEngines",
    "/schemaseek.v1.AdminService/TraceQuery",
    "/schemaseek.v1.AdminService/GetGraph",
    "/schemaseek.v1.AdminService/StreamEvents",
    "/schemaseek.v1.AdminService/UpdateGlossary",
    "/health",
    "/health/ready",
    "/metrics",
    "/",
    "/schemaseek.v1.SearchService/",
]
CONTENT_TYPES = [
    "application/json",
    "application/proto",
    "application/connect+json",
    "application/connect+proto",
    "application/grpc",
    "application/grpc+json",
    "text/plain",
    "application/json; charset=utf-8",
    "",
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
search_like = st.fixed_dictionaries(
    {},
    optional={
        "query": st.text(max_size=60) | st.integers(),
        "limit": st.integers(-5, 10_000) | st.text(max_size=5),
        "cursor": st.text(max_size=60),
        "mode": st.sampled_from(["hybrid", "keyword", "vector", "x", ""]) | st.integers(),
        "kinds": st.lists(st.text(max_size=12), max_size=3),
        "sources": st.lists(st.text(max_size=12), max_size=3),
        "filter": st.dictionaries(st.sampled_from(["include", "exclude", "x"]), json_values),
        "explain": st.booleans() | st.text(max_size=3),
        "source": st.text(max_size=12),
        "knownHash": st.text(max_size=12),
        "queryId": st.text(max_size=20),
        "selectedIds": st.lists(st.text(max_size=20), max_size=5),
        "maxNodes": st.integers(-10, 100),
        "glossaryJson": st.text(max_size=50),
        "dryRun": st.just(True),
    },
)
bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    search_like.map(lambda v: json.dumps(v).encode()),
)
malformed_timeout = st.text(max_size=12).filter(lambda t: not (t.isascii() and t.isdigit()))
headers = st.fixed_dictionaries(
    {},
    optional={
        "authorization": st.sampled_from(
            [
                f"Bearer {SEARCH_TOKEN}",
                f"Bearer {ADMIN_TOKEN}",
                "Bearer x",
                "Basic abc",
                "",
                "Bearer",
            ]
        ),
        "content-encoding": st.sampled_from(["gzip", "br", "zstd", "identity", "bogus", "GZIP"]),
        "connect-content-encoding": st.sampled_from(["gzip", "nope", "identity"]),
        "accept-encoding": st.sampled_from(["gzip", "br", "zstd", "*", "x;q=abc", ""]),
        "connect-protocol-version": st.sampled_from(["1", "2", "x"]),
        "connect-timeout-ms": malformed_timeout,
        "grpc-timeout": st.sampled_from(["1x", "abc", "99999999999S"]),
        "x-request-id": st.text(max_size=20).filter(str.isascii),
    },
)
request = st.fixed_dictionaries(
    {
        "method": st.sampled_from(["POST", "POST", "POST", "GET", "PUT", "DELETE"]),
        "path": st.sampled_from(PATHS),
        "content_type": st.sampled_from(CONTENT_TYPES),
        "body": bodies,
        "headers": headers,
        "query": st.sampled_from(
            [
                "",
                "?encoding=json&message=%7B%7D",
                "?encoding=x",
                "?compression=bogus&message=a",
                "?encoding=json&message=%7B&base64=1",
            ]
        ),
        "http2": st.booleans(),
    }
)


def _safe_headers(raw: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in raw.items() if v == v.strip() and all(32 <= ord(c) < 127 for c in v)}


def test_random_requests_never_get_a_5xx(demo_server: ServerProcess) -> None:
    sent: list[tuple[int, str]] = []
    started = time.monotonic()
    with (
        httpx.Client(base_url=demo_server.url, timeout=10.0) as h1,
        httpx.Client(base_url=demo_server.url, timeout=10.0, http1=False, http2=True) as h2,
    ):

        @settings(
            max_examples=REQUESTS,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(request)
        def one(req: dict[str, Any]) -> None:
            if time.monotonic() - started > 300:
                return
            client = h2 if req["http2"] else h1
            hdrs = _safe_headers(req["headers"])
            if req["content_type"]:
                hdrs["content-type"] = req["content_type"]
            reply = client.request(
                req["method"], req["path"] + req["query"], content=req["body"], headers=hdrs
            )
            sent.append((reply.status_code, req["path"]))
            assert reply.status_code < 500, (req, reply.status_code, reply.text[:300])
            if reply.status_code >= 400 and reply.content:
                error = reply.json()
                assert set(error) >= {"code", "message"}, error

        one()
    assert len(sent) >= 2_000
    assert demo_server.http.get("/health").status_code == 200
    answer = demo_server.rpc(
        "/schemaseek.v1.SearchService/Search", {"query": "royalty payments"}, SEARCH_TOKEN
    )
    assert answer.status_code == 200 and answer.json()["results"]
