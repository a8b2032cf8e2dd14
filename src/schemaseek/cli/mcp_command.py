"""``schemaseek mcp``: serve the MCP tools over stdio for agents.

stdout carries the MCP protocol only: progress and logs go to stderr. The sources start in a
background thread while the server already answers the protocol handshake, as the ``search``
command's engines do (:mod:`schemaseek.cli.engines`): a source whose snapshot in the data
directory matches it serves at once with vectors; any other answers keyword + glossary as soon
as it is read (the answer says vectors are still being built) and switches to hybrid when its
vectors are ready. A tool called before any source serves waits for one (up to
``--ready-timeout`` seconds, sending MCP progress notifications) and otherwise answers with an
error saying so.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from schemaseek.cli.engines import NoCacheOpt, open_engines
from schemaseek.cli.options import SourceOptions
from schemaseek.cli.output import log_progress
from schemaseek.cli.snapshot_command import SnapshotDirOpt
from schemaseek.cli.source_params import with_source_options

if TYPE_CHECKING:
    from schemaseek.engine.local import LocalEngines
    from schemaseek.feedback import FeedbackStore
    from schemaseek.mcp.served import ServedIndexes

logger = logging.getLogger("schemaseek.mcp")


@with_source_options
def mcp_command(
    sources: SourceOptions,
    feedback: Annotated[
        Path | None,
        typer.Option("--feedback", help="Append report_usage events to this JSONL file."),
    ] = None,
    ready_timeout: Annotated[
        float,
        typer.Option("--ready-timeout", help="Seconds a tool waits for the first source."),
    ] = 300.0,
    snapshot_dir: SnapshotDirOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Serve schema search to agents over MCP (stdio).

    Example: schemaseek mcp --demo   (register this command in your MCP client's configuration)
    """
    from schemaseek.feedback import FeedbackStore
    from schemaseek.mcp.served import ServedIndexes
    from schemaseek.mcp.server import build_server, run_stdio

    store = FeedbackStore(feedback) if feedback is not None else None
    engines = open_engines(sources, snapshot_dir, keep=not no_cache, progress=log_progress())
    served = ServedIndexes(engines.indexes, building=lambda: _building(engines))
    ready = threading.Event()
    failure: list[BaseException] = []
    starting = threading.Thread(
        target=_start,
        args=(engines, served, store, ready, failure),
        name="schemaseek-mcp-start",
        daemon=True,
    )
    starting.start()
    server = build_server(
        served, feedback=store, ready=ready, ready_timeout=ready_timeout, failure=failure
    )
    try:
        run_stdio(server)
    finally:
        # the client went away (stdin closed), perhaps mid-build: cancel the background work
        # and wait for it, so that no thread is still embedding while the interpreter exits
        engines.close()
        starting.join(timeout=30.0)


def _building(engines: LocalEngines) -> str | None:
    return f"sources: {engines.label}" if engines.building else None


def _start(
    engines: LocalEngines,
    served: ServedIndexes,
    store: FeedbackStore | None,
    ready: threading.Event,
    failure: list[BaseException],
) -> None:
    """Start every source (phase one: served at once), let the tools answer, then wait for
    the vectors and replay the recorded usage into the indexes that serve then."""
    try:
        engines.start(wait_for_vectors=False)
    except BaseException as exc:  # reported to every tool call
        logger.error("schemaseek mcp: the sources could not be read: %s", exc)
        failure.append(exc)
        ready.set()
        return
    ready.set()
    _say(f"{engines.label}: answering (keyword + glossary until vectors are ready)")
    engines.wait()
    if store is not None:
        served.replay(store.events())
    reports = engines.reports()
    documents = sum(r.documents for r in reports)
    warm = f", {len(engines.warm)} served from the data directory" if engines.warm else ""
    degraded = " (degraded: keyword + glossary only)" if any(r.degraded for r in reports) else ""
    _say(
        f"{documents} documents from {engines.label} ready, "
        f"{engines.embedded_documents} embedded{warm}{degraded}"
    )


def _say(line: str) -> None:
    sys.stderr.write(f"schemaseek mcp: {line}\n")
    sys.stderr.flush()
