"""Requests that used to crash, stall or get the wrong status (issue 15), against the demo
server on loopback: every one is refused before it is parsed or worked on, with its 4xx, and
the server keeps serving."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any
from urllib.parse import quote

import grpc
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemaseek.service.errors import request_deadline
from schemaseek.service.limits import Limits, check_json_body, json_depth
from schemaseek.service.settings import ServiceConfig
from tests.service.fuzzing import deep_json
from tests.service.harness import ADMIN, ADMIN_TOKEN, SEARCH, SEARCH_TOKEN, TOKENS, ServerProcess

QUESTION = "royalty payments for Sony"
JSON = {"content-type": "application/json", "authorization": f"Bearer {ADMIN_TOKEN}"}


def _post(server: ServerProcess, path: str, body: bytes, **headers: str) -> httpx.Response:
    return server.http.post(path, content=body, headers={**JSON, **headers})


def _alive(server: ServerProcess) -> None:
    reply = server.rpc(SEARCH + "Search", {"query": QUESTION, "limit": 3}, SEARCH_TOKEN)
    assert reply.status_code == 200 and reply.json()["results"]


@pytest.mark.parametrize("depth", [15_000, 100_000])
def test_deep_json_is_refused_before_it_is_parsed(demo_server: ServerProcess, depth: int) -> None:
    """15,000 nested ``[`` used to segfault the server (the native JSON parser recursed)."""
    for path, body in (
        (SEARCH + "Search", deep_json(depth)),
        (ADMIN + "TraceQuery", b'{"search":' + deep_json(depth) + b"}"),
    ):
        reply = _post(demo_server, path, body)
        assert reply.status_code == 400, reply.text
        assert reply.json()["code"] == "invalid_argument" and "max_json_depth" in reply.text
    get = demo_server.http.get(
        SEARCH + "Search?encoding=json&message=" + quote(deep_json(3000).decode()),
        headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    assert get.status_code == 400 and "max_json_depth" in get.text
    _alive(demo_server)


@pytest.mark.parametrize(
    ("body", "setting"),
    [
        ({"query": QUESTION, "filter": {"include": ["x*"] * 30_000}}, "max_filter_patterns"),
        ({"query": QUESTION, "filter": {"exclude": ["x*"] * 50_000}}, "max_filter_patterns"),
        ({"query": QUESTION, "filter": {"include": ["a" * 600]}}, "max_pattern_length"),
        ({"query": QUESTION, "sources": ["music_api"] * 65}, "max_list_items"),
        ({"query": QUESTION, "kinds": ["sql_table"] * 65}, "max_list_items"),
        ({"query": QUESTION, "cursor": "x" * 3000}, "max_cursor_bytes"),
    ],
)
def test_work_per_request_is_bounded(
    demo_server: ServerProcess, body: dict[str, Any], setting: str
) -> None:
    """30,000 include patterns took 14.6 s of a search thread; now refused at once."""
    reply = _post(demo_server, SEARCH + "Search", json.dumps(body).encode())
    assert reply.status_code == 400 and reply.json()["code"] == "invalid_argument"
    assert setting in reply.json()["message"]


def test_limits_hold_for_connect_binary_and_grpc(
    demo_server: ServerProcess, grpc_modules: dict[str, ModuleType]
) -> None:
    pb, pb_grpc = grpc_modules["search_pb2"], grpc_modules["search_pb2_grpc"]
    request = pb.SearchRequest(query=QUESTION, filter=pb.SearchFilter(include=["x*"] * 300))
    binary = demo_server.http.post(
        SEARCH + "Search",
        content=request.SerializeToString(),
        headers={"content-type": "application/proto", "authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    assert binary.status_code == 400 and "max_filter_patterns" in binary.json()["message"]
    auth = [("authorization", f"Bearer {ADMIN_TOKEN}")]
    usage = pb.ReportUsageRequest(query_id="q", selected_ids=["royalty_payment"] * 201)
    with grpc.insecure_channel(f"127.0.0.1:{demo_server.port}") as channel:
        stub = pb_grpc.SearchServiceStub(channel)
        for method, message in ((stub.Search, request), (stub.ReportUsage, usage)):
            with pytest.raises(grpc.RpcError) as caught:
                method(message, timeout=10, metadata=auth)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_an_oversized_body_is_resource_exhausted(demo_server: ServerProcess) -> None:
    body = json.dumps({"query": QUESTION, "cursor": "x" * (1 << 20)}).encode()
    reply = _post(demo_server, SEARCH + "Search", body)
    assert reply.status_code == 429 and reply.json()["code"] == "resource_exhausted"
    _alive(demo_server)


@pytest.mark.parametrize(
    ("method", "body"),
    [
        ("SearchService/Search", {"query": QUESTION, "sources": ["nope"]}),
        ("SearchService/GetSchema", {"source": "nope"}),
        ("AdminService/GetGlossary", {"source": "nope"}),
        ("AdminService/GetGraph", {"source": "nope"}),
        ("AdminService/ListSnapshots", {"source": "nope"}),
        ("AdminService/RefreshEngine", {"source": "nope"}),
        ("AdminService/RollbackSnapshot", {"source": "nope", "generation": "g"}),
        ("AdminService/TraceQuery", {"search": {"query": QUESTION, "sources": ["nope"]}}),
    ],
)
def test_an_unknown_source_is_not_found_everywhere(
    demo_server: ServerProcess, method: str, body: dict[str, Any]
) -> None:
    """GetGlossary answered 500 and Search 503 ("no engine can serve") while all were ready."""
    reply = demo_server.rpc(f"/schemaseek.v1.{method}", body, ADMIN_TOKEN)
    assert reply.status_code == 404, reply.text
    assert reply.json()["code"] == "not_found" and "nope" in reply.json()["message"]


def test_an_unknown_source_is_not_found_over_grpc(
    demo_server: ServerProcess, grpc_modules: dict[str, ModuleType]
) -> None:
    pb, pb_grpc = grpc_modules["search_pb2"], grpc_modules["search_pb2_grpc"]
    auth = [("authorization", f"Bearer {SEARCH_TOKEN}")]
    with grpc.insecure_channel(f"127.0.0.1:{demo_server.port}") as channel:
        stub = pb_grpc.SearchServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Search(pb.SearchRequest(query=QUESTION, sources=["nope"]), metadata=auth)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_get_with_an_unsupported_compression_is_a_client_fault(
    demo_server: ServerProcess,
) -> None:
    """A Connect GET with ``compression=bogus`` answered 501 (POST already answered 400)."""
    message = quote(json.dumps({"query": QUESTION}))
    reply = demo_server.http.get(
        f"{SEARCH}Search?encoding=json&compression=bogus&message={message}",
        headers={"authorization": f"Bearer {SEARCH_TOKEN}"},
    )
    assert reply.status_code == 400 and reply.json()["code"] == "invalid_argument"


def test_the_client_deadline_bounds_a_search(demo_server: ServerProcess) -> None:
    body = json.dumps({"query": "an unseen question about artists"}).encode()
    reply = _post(demo_server, SEARCH + "Search", body, **{"connect-timeout-ms": "1"})
    assert reply.json()["code"] == "deadline_exceeded"
    _alive(demo_server)


def test_one_query_embedding_per_search_over_both_engines(demo_server: ServerProcess) -> None:
    """Each engine used to embed the question itself (one cache per engine)."""

    def query_calls() -> float:
        text = demo_server.http.get("/metrics").text
        found = re.search(r'schemaseek_embedding_calls_total\{kind="embed_query"\} (\S+)', text)
        assert found is not None
        return float(found.group(1))

    before = query_calls()
    reply = demo_server.rpc(SEARCH + "Search", {"query": "which labels pay advances"})
    assert {r["source"] for r in reply.json()["results"]} == {"music_api", "music_db"}
    # the question once for both engines, and the one word of it that no table or column name
    # holds ("pay": the database engine's name bridge embeds it through the same query path)
    assert query_calls() - before == 2
    again = query_calls()
    demo_server.rpc(SEARCH + "Search", {"query": "which labels pay advances"})
    assert query_calls() == again  # both cached


def test_refused_tokens_and_mcp_are_rate_limited(warm_snapshots: Path, tmp_path: Path) -> None:
    """Failed token checks drew from no bucket; ``/mcp`` 429s had no ``retry-after``."""
    server = ServerProcess(
        tmp_path / "data",
        env={
            "SCHEMASEEK_SNAPSHOT_DIR": str(warm_snapshots),
            "SCHEMASEEK_TOKENS": TOKENS,
            "RATE_LIMIT_MAX": "3",
            "SCHEMASEEK_POLL": "false",
        },
    )
    try:
        server.wait_listening()
        guesses = [server.rpc(SEARCH + "Search", {"query": "q"}, f"guess-{i}") for i in range(6)]
        mcp = [
            server.http.post("/mcp", json={}, headers={"authorization": "Bearer nope"})
            for _ in range(6)
        ]
    finally:
        server.stop()
    codes = [r.status_code for r in guesses]
    assert codes[:3] == [401] * 3 and codes[-1] == 429
    assert int(guesses[-1].headers["retry-after"]) >= 1
    assert mcp[-1].status_code == 429 and int(mcp[-1].headers["retry-after"]) >= 1


def test_mcp_bodies_have_the_same_limits(demo_server: ServerProcess) -> None:
    auth = {"authorization": f"Bearer {SEARCH_TOKEN}", "content-type": "application/json"}
    deep = demo_server.http.post("/mcp", content=deep_json(20_000), headers=auth)
    assert deep.status_code == 400 and "max_json_depth" in deep.json()["message"]
    big = demo_server.http.post("/mcp", content=b" " * (2 << 20), headers=auth)
    assert big.status_code == 413 and big.json()["code"] == "resource_exhausted"
    _alive(demo_server)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("localhost", True),
        ("127.0.0.1.evil", False),
        ("127.evil.example", False),
        ("0.0.0.0", False),
    ],
)
def test_only_real_loopback_addresses_count_as_loopback(host: str, loopback: bool) -> None:
    assert ServiceConfig(host=host).loopback is loopback


def test_the_server_maximum_caps_the_client_deadline() -> None:
    def left(timeout_ms: float | None, max_ms: int) -> float | None:
        ctx: Any = SimpleNamespace(timeout_ms=timeout_ms)
        return request_deadline(ctx, max_ms).remaining()

    assert 0 < (left(None, 10_000) or 0) <= 10.0
    assert 0 < (left(500, 10_000) or 0) <= 0.5
    assert 0 < (left(3_600_000, 2_000) or 0) <= 2.0


def test_json_depth_is_measured_without_recursion() -> None:
    assert json_depth(b"") == 0 and json_depth(b'"[[["') == 0
    assert json_depth(b'{"a": "[\\"[", "b": [[1, {}]]}') == 4
    assert json_depth(b'"\\\\" [[ ]]') == 2
    assert json_depth(deep_json(1_000_000)) == 1_000_001
    assert json_depth(b'"' + b'\\"' * 500_000) == 0  # linear, not quadratic
    limits = Limits(max_bytes=100, json_depth=3)
    assert check_json_body(b"[[[]]]", limits) is None
    assert check_json_body(b"[[[[]]]]", limits) == (
        400,
        "the JSON message nests 4 levels deep; the limit (max_json_depth) is 3",
    )
    assert check_json_body(b" " * 101, limits) is not None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(json_values)
def test_json_depth_agrees_with_the_structure(value: Any) -> None:
    assert json_depth(json.dumps(value).encode()) == _depth(value)
