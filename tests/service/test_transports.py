"""One contract, three transports: grpcio (HTTP/2), Connect JSON over plain HTTP, and
``schemaseek.client`` — the same answers."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import grpc
import httpx
import pytest

from schemaseek.client import AsyncSchemaSeekClient, OfflineSchemaCache, SchemaSeekClient
from tests.service.harness import ADMIN_TOKEN, SEARCH, SEARCH_TOKEN, ServerProcess

QUESTION = "royalty payments for Sony"


def _grpc_search(server: ServerProcess, mods: dict[str, ModuleType], **fields: Any) -> Any:
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = mods["search_pb2_grpc"].SearchServiceStub(channel)
        request = mods["search_pb2"].SearchRequest(**fields)
        return stub.Search(
            request, timeout=10, metadata=[("authorization", f"Bearer {SEARCH_TOKEN}")]
        )


def test_same_answers_through_grpc_connect_json_and_client(
    demo_server: ServerProcess, grpc_modules: dict[str, ModuleType]
) -> None:
    via_grpc = _grpc_search(demo_server, grpc_modules, query=QUESTION, limit=8)
    reply = demo_server.rpc(SEARCH + "Search", {"query": QUESTION, "limit": 8}, SEARCH_TOKEN)
    assert reply.status_code == 200, reply.text
    via_http = reply.json()
    with SchemaSeekClient(demo_server.url, token=SEARCH_TOKEN, timeout_ms=5000) as client:
        via_client = client.search(QUESTION, limit=8)
    grpc_ids = [(r.id, r.source, r.path, round(r.score, 9)) for r in via_grpc.results]
    http_ids = [
        (r["id"], r["source"], r.get("path", ""), round(r["score"], 9)) for r in via_http["results"]
    ]
    client_ids = [(r.id, r.source, r.path, round(r.score, 9)) for r in via_client.results]
    assert grpc_ids == http_ids == client_ids
    assert len(grpc_ids) == 8
    ids = [i[0] for i in grpc_ids]
    assert ids[0] == "Query.abacusContract" and "AbacusRoyaltyPayment" in ids
    assert via_grpc.query_id and via_http["queryId"] and via_client.query_id


def test_pages_follow_the_keyset_and_do_not_repeat(demo_server: ServerProcess) -> None:
    with SchemaSeekClient(demo_server.url, token=SEARCH_TOKEN, timeout_ms=5000) as client:
        whole = [r.id for r in client.search(QUESTION, limit=12).results]
        first = client.search(QUESTION, limit=6)
        second = client.search(QUESTION, limit=6, cursor=first.next_cursor)
    assert first.next_cursor and second.next_cursor
    assert [r.id for r in first.results] + [r.id for r in second.results] == whole


def test_explain_and_join_paths(demo_server: ServerProcess) -> None:
    body = {"query": "which artists were paid royalties", "limit": 10, "explain": True}
    answer = demo_server.rpc(SEARCH + "Search", body, SEARCH_TOKEN).json()
    assert all("explanation" in r for r in answer["results"])
    tables = [r for r in answer["results"] if r["kind"] == "sql_table"]
    assert tables
    assert "joinPaths" in answer and answer["joinPaths"][0]["on"]


def test_get_schema_is_conditional(demo_server: ServerProcess) -> None:
    with SchemaSeekClient(demo_server.url, token=SEARCH_TOKEN) as client:
        graphql = client.get_schema("music_api")
        sql = client.get_schema("music_db")
        again = client.get_schema("music_api", graphql.hash)
    assert graphql.changed and json.loads(graphql.introspection_json)["__schema"]["types"]
    assert "abacusContract" in graphql.sdl
    assert sql.changed and any(t.id == "royalty_payment" for t in sql.tables)
    assert not again.changed and not again.introspection_json and again.hash == graphql.hash


@pytest.mark.anyio
async def test_async_client(demo_server: ServerProcess) -> None:
    async with AsyncSchemaSeekClient(demo_server.url, token=SEARCH_TOKEN, timeout_ms=5000) as c:
        answer = await c.search(QUESTION, limit=3)
    assert len(answer.results) == 3


def test_fallback_answers_from_the_cached_catalog(
    demo_server: ServerProcess, tmp_path: Any
) -> None:
    cache = OfflineSchemaCache(tmp_path / "catalog", ["music_api", "music_db"])
    with SchemaSeekClient(demo_server.url, token=SEARCH_TOKEN, fallback=cache) as client:
        assert client.sync_catalog() == 2
        assert client.sync_catalog() == 0
    with SchemaSeekClient("http://127.0.0.1:9", fallback=cache, timeout_ms=300) as offline:
        answer = offline.search("royalty payment", limit=5)
    assert answer.degraded and answer.mode == "keyword"
    assert "royalty_payment" in [r.id for r in answer.results]


def test_connect_responses_over_1kb_are_compressed(demo_server: ServerProcess) -> None:
    headers = {
        "content-type": "application/json",
        "authorization": f"Bearer {SEARCH_TOKEN}",
        "accept-encoding": "br, gzip",
    }
    with httpx.Client(base_url=demo_server.url) as raw:
        big = raw.post(SEARCH + "Search", json={"query": QUESTION, "limit": 20}, headers=headers)
        small = raw.post(SEARCH + "Search", json={"query": "zzzq", "limit": 1}, headers=headers)
    assert big.headers["content-encoding"] == "br" and big.json()["results"]
    assert (
        "content-encoding" not in small.headers or small.headers["content-encoding"] == "identity"
    )


def test_health_ready_and_metrics(demo_server: ServerProcess) -> None:
    assert demo_server.http.get("/health").json() == {"status": "ok"}
    ready = demo_server.http.get("/health/ready").json()
    assert ready["status"] == "ready"
    assert ready["engines"]["music_db"]["circuits"] == {"embed": "closed", "embed_query": "closed"}
    demo_server.rpc(SEARCH + "Search", {"query": QUESTION}, SEARCH_TOKEN)
    text = demo_server.http.get("/metrics").text
    for needle in (
        'schemaseek_rpc_requests_total{code="ok",method="Search"}',
        'schemaseek_rpc_latency_seconds_bucket{le="0.005",method="Search"}',
        'schemaseek_index_documents{source="music_api"} 261.0',
        'schemaseek_breaker_state{circuit="embed_query",source="music_db"} 0.0',
        "schemaseek_embedding_calls_total",
        "schemaseek_refresh_total",
    ):
        assert needle in text, needle


@pytest.mark.parametrize("token", [None, "wrong"])
def test_admin_needs_a_valid_token(demo_server: ServerProcess, token: str | None) -> None:
    reply = demo_server.rpc("/schemaseek.v1.AdminService/GetEngines", {}, token)
    assert reply.status_code == 401 and reply.json()["code"] == "unauthenticated"


def test_admin_token_can_search(demo_server: ServerProcess) -> None:
    reply = demo_server.rpc(SEARCH + "Search", {"query": QUESTION}, ADMIN_TOKEN)
    assert reply.status_code == 200
