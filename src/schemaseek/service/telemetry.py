"""Optional OpenTelemetry traces (extra ``otel``): one server span per RPC, and under a search
one span per pipeline stage.

Off by default. :meth:`Telemetry.from_env` turns it on when the standard variables ask for
it: ``OTEL_TRACES_EXPORTER`` (``otlp``, ``console``, comma-separated; ``none`` keeps it off)
or an OTLP endpoint (``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``);
``OTEL_SDK_DISABLED=true`` wins. The OTLP exporter (HTTP/protobuf) and the resource
(``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``) read their usual variables.

The RPC span continues a caller's ``traceparent``. Stage spans are the ones ``TraceQuery``
records (:mod:`schemaseek.service.trace`: keyword, vector, query embedding, glossary, rerank,
augmentation, per source), replayed as children of the RPC span with their own times, so the
pipeline has no tracing code of its own.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from schemaseek.errors import MissingExtraError
from schemaseek.service.trace import Tracer

__all__ = ["RpcSpans", "Telemetry"]


def _wanted(env: Mapping[str, str]) -> list[str]:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "").split(",")]
    names = [n for n in names if n]
    if not names and (
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        names = ["otlp"]
    return [n for n in names if n != "none"]


class Telemetry:
    """Spans through ``provider`` (an OpenTelemetry SDK ``TracerProvider``)."""

    def __init__(self, provider: Any) -> None:
        from opentelemetry import context, propagate, trace

        self.provider = provider
        self.tracer = provider.get_tracer("schemaseek")
        self.context = context
        self.propagate = propagate
        self.trace = trace

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Telemetry | None:
        """Traces as the ``OTEL_*`` variables say; None when they ask for none (module
        docstring). :class:`MissingExtraError` names the extra when it is not installed."""
        names = _wanted(env)
        if not names:
            return None
        try:
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
        except ImportError:
            raise MissingExtraError("opentelemetry-sdk", "otel") from None
        provider = TracerProvider(resource=Resource.create({"service.name": "schemaseek"}))
        for name in names:
            if name == "console":
                provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
            elif name == "otlp":
                try:
                    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                        OTLPSpanExporter,
                    )
                except ImportError:
                    package = "opentelemetry-exporter-otlp-proto-http"
                    raise MissingExtraError(package, "otel") from None
                provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            else:
                raise ValueError(f"OTEL_TRACES_EXPORTER={name!r}: use otlp, console or none")
        return cls(provider)

    def interceptor(self) -> RpcSpans:
        return RpcSpans(self)

    def current(self) -> Any:
        """The active context (the RPC span's, inside a handler)."""
        return self.context.get_current()

    def record_stages(self, tracer: Tracer, parent: Any) -> None:
        """Replay ``tracer``'s stage spans as children of ``parent``'s span."""
        now_ns = time.time_ns()
        origin_ns = now_ns - int(tracer.now_ms() * 1_000_000)
        for span in sorted(tracer.spans, key=lambda s: s.start_ms):
            start = origin_ns + int(span.start_ms * 1_000_000)
            attributes: dict[str, str] = {f"schemaseek.{k}": v for k, v in span.attributes.items()}
            if span.source:
                attributes["schemaseek.source"] = span.source
            child = self.tracer.start_span(
                f"schemaseek.{span.name}", context=parent, start_time=start, attributes=attributes
            )
            child.end(end_time=start + int(span.duration_ms * 1_000_000))

    def shutdown(self) -> None:
        """Flush and stop the exporters."""
        self.provider.shutdown()


class RpcSpans:
    """A Connect metadata interceptor: one server span per RPC (``rpc.*`` attributes, the
    Connect code as status), current while the handler runs."""

    def __init__(self, telemetry: Telemetry) -> None:
        self.telemetry = telemetry

    async def on_start(self, ctx: RequestContext[Any, Any]) -> tuple[Any, Any]:
        t = self.telemetry
        headers = {k.lower(): v for k, v in ctx.request_headers.items()}
        parent = t.propagate.extract(headers)
        span = t.tracer.start_span(
            f"{ctx.method.service_name}/{ctx.method.name}",
            context=parent,
            kind=t.trace.SpanKind.SERVER,
            attributes={
                "rpc.system": "connect_rpc",
                "rpc.service": ctx.method.service_name,
                "rpc.method": ctx.method.name,
            },
        )
        token = t.context.attach(t.trace.set_span_in_context(span, parent))
        return span, token

    async def on_end(
        self, token: tuple[Any, Any], ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        span, attached = token
        t = self.telemetry
        code = "ok"
        if isinstance(error, ConnectError):
            code = error.code.value
        elif error is not None:
            code = Code.UNKNOWN.value
        span.set_attribute("rpc.connect_rpc.error_code" if error else "rpc.code", code)
        if error is not None:
            span.set_status(t.trace.Status(t.trace.StatusCode.ERROR, str(error)))
        span.end()
        t.context.detach(attached)
