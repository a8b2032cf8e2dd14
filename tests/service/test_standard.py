"""The standard gRPC health and reflection services on the service's port, through the
clients of grpcio-health-checking and grpcio-reflection (what grpcurl and load balancers use)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from schemaseek.service.gen.grpc.reflection.v1 import reflection_pb as v1
from tests.service.harness import SEARCH_TOKEN, ServerProcess, free_port

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class _Token(grpc.UnaryUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):  # type: ignore[misc]
    """Adds the bearer token to every call (reflection needs one when tokens are set, as
    ``grpcurl -H 'authorization: Bearer ...'`` sends it)."""

    def _with_token(self, details: Any) -> Any:
        metadata = [*(details.metadata or []), ("authorization", f"Bearer {SEARCH_TOKEN}")]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)


@pytest.fixture()
def channel(demo_server: ServerProcess) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{demo_server.port}") as opened:
        yield grpc.intercept_channel(opened, _Token())


def test_health_check_answers_serving_when_ready(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "schemaseek.v1.SearchService", "schemaseek.v1.AdminService"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert answer.status == SERVING, service
    with pytest.raises(grpc.RpcError) as caught:
        health.Check(health_pb2.HealthCheckRequest(service="nope"), timeout=10)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert next(iter(watch)).status == SERVING
    watch.cancel()


def test_reflection_needs_a_token_when_tokens_are_set(demo_server: ServerProcess) -> None:
    with (
        grpc.insecure_channel(f"127.0.0.1:{demo_server.port}") as bare,
        pytest.raises(grpc.RpcError) as caught,
    ):
        ProtoReflectionDescriptorDatabase(bare).get_services()
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_health_needs_no_token(demo_server: ServerProcess) -> None:
    reply = demo_server.http.post(
        "/grpc.health.v1.Health/Check", json={}, headers={"content-type": "application/json"}
    )
    assert reply.status_code == 200 and reply.json() == {"status": "SERVING"}


def test_reflection_lists_and_describes_the_services(channel: grpc.Channel) -> None:
    """What ``grpcurl list`` and ``grpcurl describe`` ask (v1alpha, grpcio's client)."""
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    assert {"schemaseek.v1.SearchService", "schemaseek.v1.AdminService"} <= services
    assert {"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} <= services
    pool = DescriptorPool(database)
    search = pool.FindServiceByName("schemaseek.v1.SearchService")
    assert [m.name for m in search.methods] == ["Search", "GetSchema", "ReportUsage"]
    admin = pool.FindServiceByName("schemaseek.v1.AdminService")
    assert admin.FindMethodByName("TraceQuery").input_type.full_name == (
        "schemaseek.v1.TraceQueryRequest"
    )


def test_reflection_v1(channel: grpc.Channel) -> None:
    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=lambda m: m.to_binary(),
        response_deserializer=v1.ServerReflectionResponse.from_binary,
    )
    requests = [
        v1.ServerReflectionRequest.from_json(b'{"listServices": ""}'),
        v1.ServerReflectionRequest.from_json(b'{"fileContainingSymbol": "nope.X"}'),
    ]
    listed, missing = list(call(iter(requests), timeout=10))
    names = {s.name for s in listed.message_response.value.service}
    assert "schemaseek.v1.SearchService" in names
    assert missing.message_response.field == "error_response"
    assert missing.message_response.value.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_health_is_not_serving_when_no_engine_can_serve(tmp_path: Path) -> None:
    config = tmp_path / "schemaseek.toml"
    config.write_text(
        '[[sources]]\nname = "down"\ntype = "sql"\n'
        f'url = "postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none"\n',
        encoding="utf-8",
    )
    server = ServerProcess(
        tmp_path / "data", args=("--config", str(config)), env={"SCHEMASEEK_POLL": "false"}
    )
    try:
        server.wait_listening()
        ready = server.http.get("/health/ready")
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as opened:
            health = health_pb2_grpc.HealthStub(opened)
            answer = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            search = health.Check(
                health_pb2.HealthCheckRequest(service="schemaseek.v1.SearchService"),
                timeout=10,
                metadata=[("authorization", f"Bearer {SEARCH_TOKEN}")],
            )
    finally:
        server.stop()
    assert ready.status_code == 503
    assert answer.status == NOT_SERVING and search.status == NOT_SERVING
