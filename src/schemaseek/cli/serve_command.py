"""``schemaseek serve``: the network service (Connect + gRPC on one port, health, metrics).

Configuration: the optional ``--config`` file (sources, ``[search]``, ``[service]``), then
environment variables (``SCHEMASEEK_*``, ``PORT``, ``RRF_K`` ...), then these options.
Logging is configured here (JSON lines on stderr), never at import.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["serve_command"]


def serve_command(
    config: Annotated[
        Path | None,
        typer.Option("--config", help="schemaseek.toml: sources, [search] and [service]."),
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="Serve the embedded music-company demo.")
    ] = False,
    host: Annotated[
        str | None, typer.Option("--host", help="Address to bind (default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (default 8081).")] = None,
    insecure: Annotated[
        bool,
        typer.Option("--insecure", help="Allow a non-loopback address without tokens."),
    ] = False,
    questions: Annotated[
        Path | None,
        typer.Option(
            "--questions",
            exists=True,
            help="Labelled questions (JSONL: id, question, gold) for the workbench's eval page.",
        ),
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url",
            help="Coordinate with other replicas sharing the snapshot store through this "
            "Redis (redis://host:6379/0); default SCHEMASEEK_REDIS_URL, else none.",
        ),
    ] = None,
) -> None:
    """Serve search over Connect (JSON/binary) and gRPC on one port, with /health,
    /health/ready, /metrics, the admin API, MCP at /mcp and the workbench at /.

    Example: schemaseek serve --demo --port 8081
    """
    from schemaseek.service.logs import configure_logging
    from schemaseek.service.server import serve
    from schemaseek.service.settings import load_service_config
    from schemaseek.service.sources import plan_sources

    plan = plan_sources(demo=demo, config=config, questions=questions)
    overrides = {"host": host, "port": port, "insecure": insecure or None, "redis_url": redis_url}
    settings = load_service_config(plan.service_table, plan.search_table, overrides=overrides)
    api_key = os.environ.get(settings.search.embedding_api_key_env or "")
    configure_logging(settings.log_level, settings.log_format, [settings.cursor_secret, api_key])
    raise typer.Exit(serve(settings, plan))
