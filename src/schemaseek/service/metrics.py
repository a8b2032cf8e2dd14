"""Prometheus metrics: per-RPC counts and latency, index sizes, embedding calls, circuit
states, engine states and refresh outcomes (one registry per service instance)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from schemaseek.embedding.counting import CountingProvider
from schemaseek.service.backend import Backend

__all__ = ["CONTENT_TYPE", "ServiceMetrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BREAKER_VALUE = {"closed": 0.0, "half_open": 1.0, "open": 2.0}
_STATES = ("initializing", "degraded", "ready", "failed", "destroyed")


class _BackendCollector(Collector):
    """Reads the backend at scrape time."""

    def __init__(self, backend: Backend, counter: CountingProvider | None) -> None:
        self.backend = backend
        self.counter = counter

    def collect(self) -> Iterator[Metric]:
        documents = GaugeMetricFamily(
            "schemaseek_index_documents", "Documents served per source.", labels=["source"]
        )
        vectors = GaugeMetricFamily(
            "schemaseek_index_vectors", "Vectors held per source.", labels=["source"]
        )
        state = GaugeMetricFamily(
            "schemaseek_engine_state",
            "1 for the engine's current state.",
            labels=["source", "state"],
        )
        breaker = GaugeMetricFamily(
            "schemaseek_breaker_state",
            "Circuit state: 0 closed, 1 half-open, 2 open.",
            labels=["source", "circuit"],
        )
        for unit in self.backend.units:
            index = unit.index
            documents.add_metric([unit.name], index.document_count if index else 0)
            vectors.add_metric([unit.name], index.vector_count if index else 0)
            current = unit.state
            for name in _STATES:
                state.add_metric([unit.name, name], 1.0 if name == current else 0.0)
            for circuit, value in unit.circuits().items():
                breaker.add_metric([unit.name, circuit], _BREAKER_VALUE.get(value, -1.0))
        yield from (documents, vectors, state, breaker)
        refreshes = CounterMetricFamily(
            "schemaseek_refresh", "Engine starts and refreshes by outcome.",
            labels=["source", "outcome"],
        )  # fmt: skip
        for (source, outcome), count in sorted(self.backend.refresh_outcomes.items()):
            refreshes.add_metric([source, outcome], count)
        yield refreshes
        if self.counter is not None:
            calls = CounterMetricFamily(
                "schemaseek_embedding_calls", "Embedding provider calls.", labels=["kind"]
            )
            calls.add_metric(["embed"], self.counter.embed_calls)
            calls.add_metric(["embed_query"], self.counter.query_calls)
            yield calls
            texts = CounterMetricFamily(
                "schemaseek_embedded_texts", "Document texts sent to the embedding provider."
            )
            texts.add_metric([], self.counter.embedded_texts)
            yield texts


class ServiceMetrics:
    """The service's registry and its RPC instruments."""

    def __init__(self, backend: Backend, counter: CountingProvider | None = None) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "schemaseek_rpc_requests",
            "RPCs answered, by method and status code.",
            ["method", "code"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "schemaseek_rpc_latency_seconds",
            "RPC latency, by method.",
            ["method"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.http = Counter(
            "schemaseek_http_requests",
            "Non-RPC HTTP requests, by route and status.",
            ["route", "status"],
            registry=self.registry,
        )
        self.registry.register(_BackendCollector(backend, counter))

    def observe_rpc(self, method: str, code: str, seconds: float) -> None:
        self.requests.labels(method, code).inc()
        self.latency.labels(method).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
