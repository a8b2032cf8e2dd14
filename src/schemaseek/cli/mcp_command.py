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
from schemaseek.index import SchemaIndex

logger = logging.getLogger("schemaseek.mcp")


def mcp_command(
    demo: Annotated[
        bool, typer.Option("--demo", help="Use the embedded music-company demo.")
    ] = False,
    sdl: Annotated[
        Path | None, typer.Option("--sdl", help="GraphQL SDL file.", exists=True)
    ] = None,
    introspection: Annotated[
        Path | None,
        typer.Option("--introspection", help="GraphQL introspection JSON.", exists=True),
    ] = None,
    database_url: Annotated[
        str | None, typer.Option("--database-url", help="SQLAlchemy URL of a SQL database.")
    ] = None,
    schema: Annotated[
        list[str] | None, typer.Option("--schema", help="Database schema to index (repeatable).")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="schemaseek.toml with several sources.")
    ] = None,
    glossary: Annotated[Path | None, typer.Option("--glossary", help="Glossary JSON file.")] = None,
    no_glossary: Annotated[bool, typer.Option("--no-glossary", help="Use no glossary.")] = False,
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
    from schemaseek.mcp.catalog import Catalog
    from schemaseek.mcp.server import build_server, run_stdio

    options = SourceOptions(
        demo=demo,
        sdl=sdl,
        introspection=introspection,
        database_url=database_url,
        schemas=tuple(schema or ()),
        config=config,
        glossary=glossary,
        no_glossary=no_glossary,
    )
    selection = resolve(options)
    store = FeedbackStore(feedback) if feedback is not None else None
    index = SchemaIndex(selection.sources, glossary=selection.glossary, settings=selection.settings)
    ready = threading.Event()
    failure: list[BaseException] = []

    def build() -> None:
        try:
            report = index.build()
            if store is not None:
                Catalog.of(index).replay(store.events())
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
