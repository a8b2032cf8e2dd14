"""Wiring and running the service: :func:`build_service` assembles the ASGI app from a
:class:`~schemaseek.service.sources.ServePlan`, :func:`serve` runs it on Hypercorn (HTTP/1.1
and cleartext HTTP/2, so Connect and gRPC share one port) until SIGTERM/SIGINT, then drains
per :class:`~schemaseek.shutdown.GracefulShutdown`."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connectrpc.compression.brotli import BrotliCompression
from connectrpc.compression.gzip import GzipCompression
from connectrpc.compression.zstd import ZstdCompression

from schemaseek.cluster.coordinator import Coordinator
from schemaseek.config import default_cache_dir
from schemaseek.embedding.base import EmbeddingProvider
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.factory import breaker_config, provider_from_settings
from schemaseek.engine import SourceEngine
from schemaseek.engine.persistence import open_snapshots
from schemaseek.engine.units import EngineFactory, EngineUnit, ServingUnit
from schemaseek.errors import ConfigError
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary, load_glossary
from schemaseek.progress import LogProgress
from schemaseek.service.admin_service import AdminHandler
from schemaseek.service.auth import RateLimiter, TokenAuth
from schemaseek.service.backend import Backend
from schemaseek.service.events import EventBus
from schemaseek.service.gen.grpc.health.v1.health_connect import HealthASGIApplication
from schemaseek.service.gen.grpc.reflection.v1 import reflection_connect as reflection_v1
from schemaseek.service.gen.grpc.reflection.v1alpha import reflection_connect as reflection_v1a
from schemaseek.service.gen.schemaseek.v1.admin_connect import AdminServiceASGIApplication
from schemaseek.service.gen.schemaseek.v1.search_connect import SearchServiceASGIApplication
from schemaseek.service.http import ServiceApp
from schemaseek.service.interceptors import (
    ErrorInterceptor,
    GuardInterceptor,
    McpGuard,
    ObserveInterceptor,
)
from schemaseek.service.limits import Limits, limited_codecs
from schemaseek.service.metrics import ServiceMetrics
from schemaseek.service.search_service import SearchHandler
from schemaseek.service.settings import ServiceConfig
from schemaseek.service.sources import ServePlan
from schemaseek.service.standard import HealthHandler, ReflectionV1, ReflectionV1Alpha
from schemaseek.service.telemetry import Telemetry
from schemaseek.service.workbench import build_workbench
from schemaseek.shutdown import GracefulShutdown
from schemaseek.snapshots.manager import SnapshotManager

__all__ = ["Service", "build_service", "serve"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Service:
    """An assembled service: the app and what it serves."""

    app: ServiceApp
    backend: Backend
    config: ServiceConfig
    executor: ThreadPoolExecutor
    coordinator: Coordinator | None = None
    telemetry: Telemetry | None = None


def _snapshots(config: ServiceConfig) -> SnapshotManager | None:
    where = config.search.snapshot_dir or str(Path(config.data_dir) / "snapshots")
    if where.lower() == "none":
        return None
    return open_snapshots(
        where, config.search, s3_endpoint_url=config.s3_endpoint_url, s3_region=config.s3_region
    )


def build_service(
    config: ServiceConfig,
    plan: ServePlan,
    *,
    provider: EmbeddingProvider | None = None,
    units: list[ServingUnit] | None = None,
    telemetry: Telemetry | None = None,
) -> Service:
    """Everything but the listening socket. ``provider`` overrides the configured model;
    ``units`` replaces the engines built from ``plan`` (for an index built elsewhere);
    ``telemetry`` defaults to what the ``OTEL_*`` variables ask for (usually nothing)."""
    settings = config.search
    counter = CountingProvider(provider or provider_from_settings(settings))
    # the configured model goes behind the content-hash vector cache every command shares:
    # a catalog embedded once (by search, index, mcp or another service) is never sent to the
    # model again (a provider passed in is used as it is)
    documents: EmbeddingProvider = counter
    if provider is None:
        documents = DiskCachedProvider(counter, default_cache_dir() / "embeddings")
    manager = _snapshots(config)
    progress = LogProgress(logger.info)  # start-up embedding and snapshots, as log lines

    def make_engine(name: str, fetch: Any) -> SourceEngine:
        return SourceEngine(
            name,
            fetch,
            provider=documents,
            settings=settings,
            snapshots=manager,
            breaker=breaker_config(settings),
            progress=progress,
        )

    glossary_path = config.path(config.glossary_path, "glossary.json")
    glossary = load_glossary(glossary_path) if glossary_path.exists() else plan.glossary
    glossary = glossary.resolved(config.placeholders())
    coordinator = None
    if units is None:
        units, coordinator = _units(config, plan, make_engine, glossary)
    backend = Backend(
        units,
        settings=settings,
        glossary=glossary,
        feedback=FeedbackStore(config.path(config.feedback_path, "usage.jsonl")),
        events=EventBus(),
        glossary_path=glossary_path,
        poll_interval_s=settings.poll_interval_s if config.poll else None,
        poll_jitter=settings.poll_jitter,
        source_polls=plan.source_polls(settings.poll_jitter),
    )
    backend.commit_timeout_s = config.admin_timeout_s
    metrics = ServiceMetrics(backend, counter)
    executor = ThreadPoolExecutor(config.search_threads, thread_name_prefix="schemaseek-rpc")
    secret = config.cursor_secret.encode()
    auth = TokenAuth(config.tokens)
    limiter = RateLimiter(config.rate_limit_max, config.rate_limit_window_s)
    limits = Limits.of(config)
    interceptors: list[Any] = [
        ObserveInterceptor(metrics), GuardInterceptor(auth, limiter), ErrorInterceptor(),
    ]  # fmt: skip
    telemetry = telemetry if telemetry is not None else Telemetry.from_env(os.environ)
    if telemetry is not None:
        interceptors.insert(0, telemetry.interceptor())
    options: dict[str, Any] = {
        "interceptors": interceptors,
        "read_max_bytes": config.max_request_bytes,
        "compressions": [BrotliCompression(), ZstdCompression(), GzipCompression()],
        "codecs": limited_codecs(limits),
    }
    admin = AdminHandler(backend, executor, secret, config)
    apps: dict[str, Any] = {
        "/schemaseek.v1.SearchService/": SearchServiceASGIApplication(
            SearchHandler(backend, executor, secret, config, telemetry), **options
        ),
        "/schemaseek.v1.AdminService/": AdminServiceASGIApplication(admin, **options),
        "/grpc.health.v1.Health/": HealthASGIApplication(HealthHandler(backend), **options),
        "/grpc.reflection.v1.ServerReflection/": reflection_v1.ServerReflectionASGIApplication(
            ReflectionV1(), **options
        ),
        "/grpc.reflection.v1alpha.ServerReflection/": (
            reflection_v1a.ServerReflectionASGIApplication(ReflectionV1Alpha(), **options)
        ),
    }
    mcp_app, mcp_lifespan = _mcp(config, backend)
    app = ServiceApp(
        backend,
        apps,
        metrics,
        mcp_app=mcp_app,
        mcp_lifespan=mcp_lifespan,
        mcp_guard=McpGuard(auth, limiter),
        web_app=(
            build_workbench(config, backend, admin, auth, limiter, plan.questions)
            if config.workbench
            else None
        ),
        compression_min_bytes=config.compression_min_bytes,
        limits=limits,
    )
    return Service(app, backend, config, executor, coordinator, telemetry)


def _units(
    config: ServiceConfig, plan: ServePlan, factory: EngineFactory, glossary: Glossary
) -> tuple[list[ServingUnit], Coordinator | None]:
    """One engine unit per source; replica units coordinated through Redis when
    ``redis_url`` is set (else this process coordinates alone: no outage, no Redis)."""
    if not config.redis_url:
        return [EngineUnit(s.name, s.fetch, factory, glossary) for s in plan.sources], None
    from schemaseek.cluster import RedisCoordinator, ReplicaUnit

    coordinator = RedisCoordinator(
        config.redis_url, prefix=config.redis_prefix, replica_id=config.replica_id,
        lease_ttl_s=config.lease_ttl_s,
    )  # fmt: skip
    units: list[ServingUnit] = [
        ReplicaUnit(
            s.name, s.fetch, factory, glossary, coordinator, startup_wait_s=config.startup_wait_s
        )
        for s in plan.sources
    ]
    return units, coordinator


def _mcp(config: ServiceConfig, backend: Backend) -> tuple[Any, Any]:
    """The MCP streamable-HTTP app over every engine the backend serves (read at each call,
    so refreshed, rolled back or replaced indexes are picked up)."""
    if not config.mcp:
        return None, None
    from schemaseek.mcp.served import ServedIndexes
    from schemaseek.mcp.server import build_server, http_app

    served = ServedIndexes(lambda: [unit.index for unit in backend.units], view=backend.reading)
    server = build_server(served, feedback=backend.feedback, ready=backend.started)
    app = http_app(server, host=config.host, path="/mcp")
    return app, server.session_manager.run


def serve(
    config: ServiceConfig, plan: ServePlan, *, provider: EmbeddingProvider | None = None
) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status (0 after a clean drain).

    Raises:
        ConfigError: the address is refused (see ``check_binding``) or cannot be bound (the
            port is in use): nothing is logged as listening then.
    """
    config.check_binding()
    listener = _listen(config.host, config.port)
    try:
        service = build_service(config, plan, provider=provider)
    except BaseException:
        listener.close()
        raise
    return asyncio.run(_run(service, listener))


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything starts (Hypercorn takes it over by fd)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=1024)
    except OSError as exc:
        reason = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise ConfigError(
            f"cannot listen on {host}:{port}: {reason} (choose another with --port or PORT)"
        ) from None


async def _run(service: Service, listener: socket.socket) -> int:
    from hypercorn.asyncio import serve as hypercorn_serve
    from hypercorn.config import Config

    config = service.config
    hyper = Config()
    port = listener.getsockname()[1]
    hyper.bind = [f"fd://{listener.detach()}"]
    hyper.accesslog = None
    hyper.graceful_timeout = min(5.0, config.search.shutdown_timeout_s)
    hyper.keep_alive_timeout = 30.0
    hyper.h2_max_concurrent_streams = 256
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    shutdown = GracefulShutdown(
        engines=[_Drain(service)],
        closers=[lambda: loop.call_soon_threadsafe(stop.set)],
        timeout_s=config.search.shutdown_timeout_s,
    )
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, shutdown.start)
    logger.info(
        "schemaseek service listening",
        extra={"host": config.host, "port": port, "sources": len(service.backend.units)},
    )
    await hypercorn_serve(service.app, hyper, shutdown_trigger=stop.wait)  # type: ignore[arg-type]
    service.executor.shutdown(wait=False, cancel_futures=True)
    if not shutdown.wait(config.search.shutdown_timeout_s):  # stopped without a signal
        return 0 if shutdown.shutdown() else 1
    return 0 if shutdown.drained else 1


class _Drain:
    """Adapts the backend to :class:`GracefulShutdown`'s engine protocol."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def destroy(self, timeout: float | None = None) -> bool:
        drained = self.service.backend.close(timeout or 10.0)
        if self.service.coordinator is not None:
            self.service.coordinator.close()
        if self.service.telemetry is not None:
            self.service.telemetry.shutdown()
        return drained
