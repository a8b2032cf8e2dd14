"""Commands: ``search``, ``index``, ``demo`` (``eval``, ``mcp``, ``serve``, ``snapshot`` and
``glossary`` live in modules of their own). Each has an example in its help."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from schemaseek.cli.engines import NoCacheOpt, cache_report, open_engines, started_engines
from schemaseek.cli.eval_command import eval_command
from schemaseek.cli.glossary_command import glossary_app
from schemaseek.cli.mcp_command import mcp_command
from schemaseek.cli.options import SourceOptions, resolve
from schemaseek.cli.output import (
    build_progress,
    print_json,
    print_response,
    stderr,
    stdout,
    with_root_paths,
)
from schemaseek.cli.serve_command import serve_command
from schemaseek.cli.snapshot_command import (
    SnapshotDirOpt,
    index_with_snapshots,
    snapshot_app,
)
from schemaseek.cli.source_params import with_source_options
from schemaseek.documents import DocKind
from schemaseek.errors import SchemaSeekError

if TYPE_CHECKING:
    from schemaseek.documents import SearchResponse
    from schemaseek.index import SchemaIndex

app = typer.Typer(
    name="schemaseek",
    help="Find the GraphQL operations, types and SQL tables that answer a business question.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from schemaseek import __version__

        sys.stdout.write(f"schemaseek {__version__}\n")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Find the GraphQL operations, types and SQL tables that answer a business question."""


app.command(name="eval")(eval_command)
app.command(name="mcp")(mcp_command)
app.command(name="serve")(serve_command)
app.add_typer(snapshot_app, name="snapshot")
app.add_typer(glossary_app, name="glossary")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


@app.command()
@with_source_options
def search(
    question: Annotated[str, typer.Argument(help="The question, in business language.")],
    sources: SourceOptions,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many results.")] = 10,
    kind: Annotated[
        list[DocKind] | None, typer.Option("--kind", help="Only these kinds (repeatable).")
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, keyword or vector.")] = "hybrid",
    explain: Annotated[bool, typer.Option("--explain", help="Show why each hit matched.")] = False,
    json_out: JsonOpt = False,
    snapshot_dir: SnapshotDirOpt = None,
    no_cache: NoCacheOpt = False,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait/--no-wait",
            help="Wait for the vectors of a source not embedded yet (--no-wait answers at once "
            "with keyword + glossary, marked degraded).",
        ),
    ] = True,
) -> None:
    """Answer a question with ranked schema items. The first run on a source embeds it and
    keeps a snapshot in the data directory; later runs start from it and embed nothing.

    Example: schemaseek search "royalty payments for Sony" --demo --explain
    """
    from schemaseek.query.filters import SearchFilter
    from schemaseek.query.pipeline import MODES

    if mode not in MODES:
        raise SchemaSeekError(f"--mode must be one of {', '.join(MODES)}")
    chosen = next(m for m in MODES if m == mode)
    search_filter = SearchFilter(kinds=tuple(kind or ()))
    keyword = chosen == "keyword"  # no model at all: nothing embedded, nothing loaded
    with build_progress() as progress:
        engines = open_engines(
            sources, snapshot_dir, embed=not keyword, keep=not no_cache, progress=progress
        )
        try:
            engines.start(wait_for_vectors=wait and not keyword)
            response = engines.search(
                question, limit=limit, mode=chosen, search_filter=search_filter
            )
        except BaseException:
            engines.close()
            raise
    try:
        _answer(response, json_out, explain, engines.index_of, cache_report(engines))
    finally:
        engines.close()


def _answer(
    response: SearchResponse,
    json_out: bool,
    explain: bool,
    index_for: Callable[[str], SchemaIndex | None],
    cache: dict[str, Any],
) -> None:
    if json_out:
        payload = with_root_paths(index_for, response)
        if cache:
            payload["index"] = cache
        print_json(payload)
        return
    print_response(response, explain)
    if cache:
        warm = ", ".join(cache["warm"]) or "none"
        stderr.print(
            f"[dim]served warm: {escape(warm)}; {cache['embedded_documents']} documents "
            "embedded by this run[/]"
        )


@app.command()
@with_source_options
def index(
    sources: SourceOptions,
    json_out: JsonOpt = False,
    snapshot_dir: SnapshotDirOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Build the index of every source and keep it (a snapshot per source in the data
    directory, or in --snapshot-dir); print a summary, one line per source.

    Example: schemaseek index --sdl schema.graphql --json
    """
    if snapshot_dir is not None and not no_cache:
        index_with_snapshots(resolve(sources), snapshot_dir, json_out)
        return
    with build_progress() as progress:
        engines = started_engines(sources, keep=not no_cache, progress=progress)
    try:
        from schemaseek.glossary_lint import warn_unresolved

        warn_unresolved(engines.glossary, [s for i in engines.indexes() for s in i.sources])
        reports = engines.reports()
        failed = [r for r in reports if r.error or r.save_error]
        if json_out:
            print_json(
                {
                    "sources": [r.source for r in reports],
                    "documents": sum(r.documents for r in reports),
                    "embedded": engines.embedded_documents,
                    "degraded": any(r.degraded for r in reports),
                    "warm": list(engines.warm),
                    "engines": [r.to_dict() for r in reports],
                }
            )
        else:
            for r in reports:
                stdout.print(
                    f"[bold]{escape(r.source)}[/]: {r.documents} documents, "
                    f"{r.embedded} embedded, {r.reused} reused → generation "
                    f"{escape(str(r.generation))} in {r.took_s:.2f} s"
                    + (f"  [red]{escape(r.error or r.save_error or '')}[/]" if r in failed else "")
                )
        if failed:
            raise typer.Exit(1)
    finally:
        engines.close()


@app.command()
def demo(
    explain: Annotated[bool, typer.Option("--explain/--no-explain")] = True,
    limit: Annotated[int, typer.Option("--limit", "-n")] = 5,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            help="Write the demo as files into this folder instead (schema.graphql, music.db, "
            "glossary.json, schemaseek.toml).",
        ),
    ] = None,
) -> None:
    """Index the embedded demo and answer its sample questions.

    Example: schemaseek demo --limit 3

    Example: schemaseek demo --export .   (then: schemaseek search "royalties" --config
    schemaseek.toml)
    """
    from schemaseek.sources.demo import demo_questions, export_demo

    if export is not None:
        for path in export_demo(export):
            stdout.print(f"wrote {path}", markup=False, highlight=False)
        return

    with build_progress() as progress:
        engines = started_engines(SourceOptions(demo=True), progress=progress)
    try:
        documents = sum(r.documents for r in engines.reports())
        stdout.print(f"[bold]schemaseek demo[/]: {documents} documents indexed")
        for question in demo_questions():
            print_response(engines.search(question, limit=limit), explain)
    finally:
        engines.close()


def main() -> None:
    """Entry point: clear one-line errors (JSON with --json) and exit code 2 for bad input,
    bad settings (``SCHEMASEEK_*``) and a port in use; never a traceback for those."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        # without standalone mode click returns a command's exit code instead of exiting
        code = app(standalone_mode=False, prog_name="schemaseek")
    except SchemaSeekError as exc:
        _fail("; ".join([str(exc), *getattr(exc, "__notes__", ())]), type(exc).__name__)
    except typer.Abort:
        sys.exit(130)
    except Exception as exc:
        # usage errors: click's ClickException (typer may ship its own copy of click)
        show, exit_code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(exit_code, int):
            show()
            sys.exit(exit_code)
        if type(exc).__module__.startswith("pydantic") and hasattr(exc, "errors"):
            _fail(settings_problem(exc), "ConfigError")
        raise
    sys.exit(code if isinstance(code, int) else 0)


def settings_problem(exc: Any) -> str:
    """One line for a pydantic ``ValidationError`` of the settings, naming the environment
    variable that holds the bad value (``SCHEMASEEK_RRF_K='abc': ...``)."""
    parts = []
    for error in exc.errors()[:5]:
        field = ".".join(str(p) for p in error["loc"])
        variable = f"SCHEMASEEK_{str(error['loc'][0]).upper()}" if error["loc"] else ""
        if variable in os.environ:
            parts.append(f"{variable}={os.environ[variable]!r}: {error['msg']}")
        else:
            parts.append(f"setting {field or exc.title}: {error['msg']}")
    return "invalid configuration: " + "; ".join(parts)


def _fail(message: str, kind: str) -> None:
    """Print ``error: message`` on one line, the message verbatim (no rich markup: a
    ``pip install 'schemaseek[postgres]'`` hint stays as it is), and exit 2."""
    if "--json" in sys.argv:
        print_json({"error": {"type": kind, "message": message}})
    else:
        from rich.text import Text

        stderr.print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)
    sys.exit(2)
