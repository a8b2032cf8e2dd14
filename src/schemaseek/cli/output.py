"""Rendering for humans (rich tables on stdout, progress on stderr) and for machines (JSON)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from schemaseek.documents import SearchResponse
from schemaseek.index import BuildReport, SchemaIndex

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True)


def print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


@contextmanager
def build_progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress bar per build stage on stderr; yields the callback for ``SchemaIndex.build``."""
    if not enabled:
        yield None
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


def report_dict(report: BuildReport) -> dict[str, Any]:
    return {
        "sources": list(report.sources),
        "documents": report.documents,
        "embedded": report.embedded,
        "edges": report.edges,
        "degraded": report.degraded,
        "glossary_entries": report.glossary_entries,
        "glossary_missing": list(report.glossary_missing),
        "took_ms": round(report.took_s * 1000, 1),
    }


def print_report(report: BuildReport) -> None:
    stdout.print(
        f"indexed [bold]{report.documents}[/] documents from {', '.join(report.sources)} "
        f"({report.edges} edges, {report.embedded} embedded, "
        f"glossary {report.glossary_entries} entries) in {report.took_s:.2f} s"
        + ("  [yellow]degraded: keyword + glossary only[/]" if report.degraded else "")
    )
    if report.glossary_missing:
        stdout.print(
            "[yellow]glossary targets not in the index:[/] " + ", ".join(report.glossary_missing)
        )


def print_response(response: SearchResponse, explain: bool) -> None:
    title = f"{response.query!r} — {response.mode}, {response.took_ms:.1f} ms"
    if response.degraded:
        title += " [yellow](degraded: keyword + glossary)[/]"
    table = Table(title=title, title_justify="left", show_lines=explain)
    table.add_column("#", justify="right")
    table.add_column("id", style="bold")
    table.add_column("kind")
    table.add_column("source")
    table.add_column("score", justify="right")
    if explain:
        table.add_column("why")
    for position, hit in enumerate(response.hits, start=1):
        row = [
            str(position),
            hit.id,
            hit.document.kind.value,
            hit.document.source,
            f"{hit.score:.4f}",
        ]
        if explain:
            row.append(_why(hit.explanation.to_dict(), [r.id for r in hit.related]))
        table.add_row(*row)
    stdout.print(table)
    for example in response.examples:
        stdout.print(f"[green]curated example[/] for {example['question']!r}:")
        stdout.print(f"  {example['query']}", highlight=False)


def _why(explanation: dict[str, Any], related: list[str]) -> str:
    parts = []
    if explanation.get("pinned"):
        parts.append("exact identifier")
    for name, signal in explanation["signals"].items():
        parts.append(f"{name} #{signal['rank']} ({signal['score']:.3f})")
    if explanation.get("glossary"):
        parts.append("glossary: " + ", ".join(explanation["glossary"]))
    if explanation.get("prefer"):
        parts.append(f"prefer {explanation['prefer']}")
    if related:
        parts.append("related: " + ", ".join(related))
    return "\n".join(parts)


def with_root_paths(index: SchemaIndex, response: SearchResponse) -> dict[str, Any]:
    """The ``--json`` object; GraphQL hits also carry their shortest path from a root field
    with each step's required arguments (``"path": null`` when nothing leads there)."""
    from schemaseek.paths.graphql import root_path

    payload = response.to_dict(explain=True)
    order = response.ids()
    for result, hit in zip(payload["results"], response.hits, strict=True):
        if hit.document.kind.value.startswith("graphql_"):
            path = root_path(index, hit.id, prefer=order)
            result["path"] = path.to_dict() if path is not None else None
    return payload
