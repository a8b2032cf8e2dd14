"""Snapshot-aware commands: ``index``/``search --snapshot-dir`` and the ``snapshot`` group.

``--snapshot-dir`` takes a directory or ``s3://bucket/prefix`` (an S3-compatible endpoint comes
from ``SCHEMASEEK_S3_ENDPOINT_URL``); without it, ``SCHEMASEEK_SNAPSHOT_DIR`` is used.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from schemaseek.cli.output import build_progress, stderr, stdout
from schemaseek.errors import ConfigError

if TYPE_CHECKING:  # imported when a command runs, so that start-up stays light
    from schemaseek.cli.options import ResolvedSources
    from schemaseek.config import SearchSettings
    from schemaseek.engine import SourceEngine
    from schemaseek.snapshots.manager import SnapshotManager
    from schemaseek.sources.base import SourceSchema

__all__ = ["SnapshotDirOpt", "index_with_snapshots", "snapshot_app"]

SnapshotDirOpt = Annotated[
    str | None,
    typer.Option(
        "--snapshot-dir",
        help="Snapshot store (directory or s3://bucket/prefix); default $SCHEMASEEK_SNAPSHOT_DIR.",
    ),
]
SourceOpt = Annotated[str | None, typer.Option("--source", help="Only this source.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]

snapshot_app = typer.Typer(help="List, verify and roll back snapshot generations.")


def open_manager(location: str | None, settings: SearchSettings | None = None) -> SnapshotManager:
    """The manager of ``location`` (or the configured snapshot directory)."""
    from schemaseek.config import SearchSettings
    from schemaseek.engine.persistence import open_snapshots

    settings = settings or SearchSettings()
    where = location or settings.snapshot_dir
    if not where:
        raise ConfigError("give --snapshot-dir DIR (or set SCHEMASEEK_SNAPSHOT_DIR)")
    endpoint = os.environ.get("SCHEMASEEK_S3_ENDPOINT_URL")
    return open_snapshots(where, settings, s3_endpoint_url=endpoint)


def _engines(
    selection: ResolvedSources, manager: SnapshotManager, *, keep_hold: bool
) -> list[SourceEngine]:
    """One started engine per source (warm from the newest valid generation when possible),
    their progress (embedding, snapshot load and save) on stderr; ``keep_hold=False`` applies
    the live source even over a rolled-back generation."""
    from schemaseek.embedding.factory import breaker_config, provider_from_settings
    from schemaseek.engine import SourceEngine

    settings = selection.settings
    provider = provider_from_settings(settings)
    engines = []
    with build_progress() as progress:
        for schema in selection.sources:
            engine = SourceEngine(
                schema.name,
                _constant(schema),
                provider=provider,
                glossary=selection.glossary.narrowed_to(schema),
                settings=settings,
                snapshots=manager,
                breaker=breaker_config(settings),
                progress=progress,
            )
            engine.init(wait=True, keep_hold=keep_hold)
            engines.append(engine)
    from schemaseek.glossary_lint import warn_unresolved

    warn_unresolved(selection.glossary, selection.sources)
    return engines


def _constant(schema: SourceSchema) -> Callable[[], SourceSchema]:
    return lambda: schema


def index_with_snapshots(selection: ResolvedSources, location: str | None, json_out: bool) -> None:
    """``index --snapshot-dir``: one line per source (JSON Lines with ``--json``); an explicit
    index applies the live source even over a rolled-back generation; exit code 1
    when a source failed or its new generation could not be saved (the line then says which
    generation a start would load instead)."""
    from schemaseek.engine import EngineReport

    manager = open_manager(location, selection.settings)
    failed = False
    for engine in _engines(selection, manager, keep_hold=False):
        report = engine.last_report or EngineReport(engine.name, 0, 0, 0)
        engine.destroy()
        problem = report.error or report.save_error
        failed |= bool(problem)
        serving = report.generation or "none (a start would be cold)"
        if json_out:
            line = report.to_dict() | {
                "saved": not problem,
                "serving_generation": report.generation,
            }
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        elif problem:
            stderr.print(
                f"[bold]{escape(report.source)}[/]: [red]not saved[/]: {escape(problem)}; "
                f"the newest saved generation is still {serving}"
            )
        else:
            stdout.print(
                f"[bold]{escape(report.source)}[/]: {report.documents} documents, "
                f"{report.embedded} embedded, {report.reused} reused → generation "
                f"{report.generation} in {report.took_s:.2f} s"
            )
    if failed:
        raise typer.Exit(1)


# -- snapshot list | verify | rollback ------------------------------------------------------


def _print(rows: list[dict[str, Any]], json_out: bool, columns: list[str]) -> None:
    if json_out:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    for row in rows:
        stdout.print("  ".join(f"{row.get(c)}" for c in columns), highlight=False, markup=False)


@snapshot_app.command("list")
def list_command(
    snapshot_dir: SnapshotDirOpt = None, source: SourceOpt = None, json_out: JsonOpt = False
) -> None:
    """List generations, newest first, each verified as a start-up would (``status``).

    Example: schemaseek snapshot list --snapshot-dir .schemaseek/snapshots
    """
    manager = open_manager(snapshot_dir)
    rows = []
    for name in [source] if source else manager.sources():
        for info in manager.generations(name):
            manifest = info.manifest
            problem = manager.problem(info)
            rows.append(
                {
                    "source": name,
                    "fingerprint": info.fingerprint,
                    "generation": info.generation,
                    "created_at": manifest.created_at if manifest else None,
                    "documents": manifest.documents if manifest else None,
                    "vectors": manifest.vectors if manifest else None,
                    "bytes": manifest.total_bytes if manifest else None,
                    "rolled_back_from": manifest.rolled_back_from if manifest else None,
                    "status": "valid" if problem is None else f"invalid: {problem}",
                }
            )
    _print(rows, json_out, ["source", "generation", "created_at", "documents", "status"])


@snapshot_app.command("verify")
def verify_command(
    snapshot_dir: SnapshotDirOpt = None,
    source: SourceOpt = None,
    generation: Annotated[str | None, typer.Option("--generation", help="Only this one.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Check every file's size and SHA-256; exit code 1 when a generation is not loadable.

    Example: schemaseek snapshot verify --snapshot-dir D --source music_api
    """
    manager = open_manager(snapshot_dir)
    rows = []
    for name in [source] if source else manager.sources():
        for info in manager.generations(name):
            if generation and info.generation != generation:
                continue
            problem = manager.problem(info)
            status, ok = ("valid", True) if problem is None else (f"invalid: {problem}", False)
            rows.append(
                {"source": name, "generation": info.generation, "valid": ok, "status": status}
            )
    _print(rows, json_out, ["source", "generation", "status"])
    if not all(r["valid"] for r in rows):
        raise typer.Exit(1)


@snapshot_app.command("rollback")
def rollback_command(
    source: Annotated[str, typer.Argument(help="The source.")],
    generation: Annotated[str, typer.Argument(help="The generation to serve again.")],
    snapshot_dir: SnapshotDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Make an older generation the newest (verified, then copied as a new generation). It
    holds: services started on it stay on it until the source's schema changes again or an
    admin refreshes the source (RefreshEngine).

    Example: schemaseek snapshot rollback music_api 20260407T120000000000Z-ab12cd --snapshot-dir D
    """
    from schemaseek.engine import persistence

    hold = {persistence.HOLD: True}
    manifest = open_manager(snapshot_dir).rollback(source, generation, extra=hold)
    row = {"source": source, "generation": manifest.generation, "rolled_back_from": generation}
    _print([row], json_out, ["source", "generation", "rolled_back_from"])
