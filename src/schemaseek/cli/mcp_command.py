"""``schemaseek mcp``: serve the MCP tools over stdio for agents.

stdout carries the MCP protocol only: progress and logs go to stderr. The index is built in a
background thread while the server already answers the protocol handshake, so clients with a
start-up timeout connect at once; a tool called before the index is ready waits for it (up to
``--ready-timeout`` seconds) and otherwise answers with an error saying so.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from schemaseek.cli.options import SourceOptions, resolve
from schemaseek.cli.output import log_progress
from schemaseek.cli.source_params import with_source_options

logger = logging.getLogger("schemaseek.mcp")


@with_source_options
def mcp_command(
    sources: SourceOptions,
    feedback: Annotated[
        Path | None,
        typer.Option("--feedback", help="Append report_usage events to this JSONL file."),
    ] = None,
    ready_timeout: Annotated[
        float, typer.Option("--ready-timeout", help="Seconds a tool waits for the index build.")
    ] = 300.0,
) -> None:
    """Serve schema search to agents over MCP (stdio).

    Example: schemaseek mcp --demo   (register this command in your MCP client's configuration)
    """
    from schemaseek.feedback import FeedbackStore
    from schemaseek.index import SchemaIndex
    from schemaseek.mcp.served import ServedIndexes
    from schemaseek.mcp.server import build_server, run_stdio

    selection = resolve(sources)
    store = FeedbackStore(feedback) if feedback is not None else None
    index = SchemaIndex(selection.sources, glossary=selection.glossary, settings=selection.settings)
    ready = threading.Event()
    failure: list[BaseException] = []

    def build() -> None:
        try:
            report = index.build(log_progress())  # stdout is the protocol: lines on stderr
            if store is not None:
                ServedIndexes.of(index).replay(store.events())
            degraded = " (degraded: keyword + glossary only)" if report.degraded else ""
            print(
                f"schemaseek mcp: {report.documents} documents from {selection.label} "
                f"ready in {report.took_s:.1f} s{degraded}",
                file=sys.stderr,
                flush=True,
            )
        except BaseException as exc:  # reported to every tool call
            logger.error("schemaseek mcp: building the index failed: %s", exc)
            failure.append(exc)
        finally:
            ready.set()

    threading.Thread(target=build, name="schemaseek-index-build", daemon=True).start()
    server = build_server(
        index, feedback=store, ready=ready, ready_timeout=ready_timeout, failure=failure
    )
    run_stdio(server)
