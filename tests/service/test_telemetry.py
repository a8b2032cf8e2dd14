"""OpenTelemetry traces: off unless the ``OTEL_*`` variables ask; one server span per RPC
(continuing the caller's ``traceparent``) and, under a search, one span per pipeline stage.
The service runs in process; spans go to the SDK's in-memory exporter."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind

from schemaseek.service.server import build_service
from schemaseek.service.settings import load_service_config
from schemaseek.service.sources import plan_sources
from schemaseek.service.telemetry import Telemetry
from tests.engine.fakes import HashProvider

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def test_off_by_default_and_on_by_the_standard_variables() -> None:
    assert Telemetry.from_env({}) is None
    assert Telemetry.from_env({"OTEL_TRACES_EXPORTER": "none"}) is None
    disabled = {"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}
    assert Telemetry.from_env(disabled) is None
    on = Telemetry.from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert on is not None
    on.shutdown()
    with pytest.raises(ValueError, match="use otlp, console or none"):
        Telemetry.from_env({"OTEL_TRACES_EXPORTER": "zipkin"})


@pytest.mark.anyio
async def test_a_search_rpc_has_its_span_and_the_pipeline_stages(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    config = load_service_config(
        {"data_dir": str(tmp_path), "mcp": False, "poll": False},
        {"snapshot_dir": "none"},
        env={},
    )
    service = build_service(
        config, plan_sources(demo=True, env={}), provider=HashProvider(),
        telemetry=Telemetry(provider),
    )  # fmt: skip
    backend = service.backend
    backend.start()
    try:
        deadline = time.monotonic() + 60
        while backend.status() != "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        transport = httpx.ASGITransport(app=service.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            answer = await client.post(
                "/schemaseek.v1.SearchService/Search",
                json={"query": "royalty payments for Sony", "limit": 3},
                headers={"traceparent": PARENT},
            )
        assert answer.status_code == 200, answer.text
    finally:
        backend.close(10)
        service.executor.shutdown(wait=False)
    spans = exporter.get_finished_spans()
    rpc = [s for s in spans if s.kind is SpanKind.SERVER]
    assert [s.name for s in rpc] == ["schemaseek.v1.SearchService/Search"]
    server = rpc[0]
    assert f"{server.context.trace_id:032x}" == TRACE_ID  # the caller's trace goes on
    assert server.attributes is not None and server.attributes["rpc.method"] == "Search"
    rpc_id = server.context.span_id
    stages = [s for s in spans if s.parent is not None and s.parent.span_id == rpc_id]
    names = {s.name for s in stages}
    assert {"schemaseek.pipeline", "schemaseek.keyword.search", "schemaseek.vector.search"} <= names
    assert {"schemaseek.embed_query", "schemaseek.glossary.match"} <= names
    assert {(s.attributes or {}).get("schemaseek.source") for s in stages} >= {
        "music_api", "music_db",
    }  # fmt: skip
    assert server.start_time is not None and server.end_time is not None
    for stage in stages:
        assert stage.start_time is not None and stage.end_time is not None
        assert stage.end_time >= stage.start_time
