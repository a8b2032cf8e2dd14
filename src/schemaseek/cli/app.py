"""Commands: ``search``, ``index``, ``demo`` (``eval``, ``mcp``, ``serve``, ``snapshot`` and
``glossary`` live in modules of their own). Each has an example in its help."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from schemaseek.cli.eval_command import eval_command
from schemaseek.cli.glossary_command import glossary_app
from schemaseek.cli.mcp_command import mcp_command
from schemaseek.cli.options import SourceOptions, resolve
from schemaseek.cli.output import (
    build_progress,
    print_json,
    print_report,
    print_response,
    report_dict,
    stderr,
    stdout,
    with_root_paths,
)
from schemaseek.cli.serve_command import serve_command
from schemaseek.cli.snapshot_command import (
    SnapshotDirOpt,
    index_with_snapshots,
    search_index,
    snapshot_app,
)
from schemaseek.cli.source_params import with_source_options
from schemaseek.documents import DocKind
from schemaseek.errors import SchemaSeekError

if TYPE_CHECKING:
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


def _build(options: SourceOptions) -> tuple[SchemaIndex, str]:
    from schemaseek.index import SchemaIndex

    selection = resolve(options)
    index = SchemaIndex(selection.sources, glossary=selection.glossary, settings=selection.settings)
    with build_progress() as update:
        report = index.build(update)
    if report.degraded:
        stderr.print("[yellow]warning:[/] vectors unavailable; keyword + glossary only")
    return index, selection.label


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
) -> None:
    """Answer a question with ranked schema items.

    Example: schemaseek search "royalty payments for Sony" --demo --explain
    """
    from schemaseek.query.pipeline import MODES

    if mode not in MODES:
        raise SchemaSeekError(f"--mode must be one of {', '.join(MODES)}")
    if snapshot_dir is not None:
        index = search_index(resolve(sources), snapshot_dir)
    else:
        index, _label = _build(sources)
    response = index.search(question, limit=limit, mode=mode, kinds=kind or ())
    if json_out:
        print_json(with_root_paths(index, response))
    else:
        print_response(response, explain)


@app.command()
@with_source_options
def index(
    sources: SourceOptions,
    json_out: JsonOpt = False,
    snapshot_dir: SnapshotDirOpt = None,
) -> None:
    """Build the index of a source and print a summary (with --snapshot-dir: one line per
    source, reusing and saving snapshot generations).

    Example: schemaseek index --sdl schema.graphql --json
    """
    from schemaseek.index import SchemaIndex

    selection = resolve(sources)
    if snapshot_dir is not None:
        index_with_snapshots(selection, snapshot_dir, json_out)
        return
    built = SchemaIndex(selection.sources, glossary=selection.glossary, settings=selection.settings)
    with build_progress() as update:
        report = built.build(update)
    if json_out:
        print_json(report_dict(report))
    else:
        print_report(report)


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

    built, _ = _build(SourceOptions(demo=True))
    stdout.print(f"[bold]schemaseek demo[/]: {len(built.documents)} documents indexed")
    for question in demo_questions():
        print_response(built.search(question, limit=limit), explain)


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
