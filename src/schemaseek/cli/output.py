"""Rendering for humans (rich tables on stdout, progress on stderr) and for machines (JSON)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from schemaseek.documents import SearchResponse
from schemaseek.progress import LogProgress

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True)


def print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def log_progress() -> LogProgress:
    """Progress as periodic ``schemaseek: stage: done/total`` lines on stderr."""

    def emit(line: str) -> None:
        sys.stderr.write(f"schemaseek: {line}\n")
        sys.stderr.flush()

    return LogProgress(emit)


@contextmanager
def build_progress(enabled: bool = True) -> Iterator[Callable[[str, int, int], None] | None]:
    """Progress of long steps on stderr — a bar per stage on a terminal, periodic log lines
    otherwise (:mod:`schemaseek.progress`); yields the ``progress(stage, done, total)``
    callback (None when not ``enabled``)."""
    if not enabled:
        yield None
        return
    if not stderr.is_terminal:
        yield log_progress()
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


def print_response(response: SearchResponse, explain: bool) -> None:
    # user text (questions, ids, glossary terms, queries) is escaped: rich markup never eats it
    title = f"{escape(repr(response.query))} — {response.mode}, {response.took_ms:.1f} ms"
    if response.degraded:
        title += " [yellow](degraded: keyword + glossary)[/]"
    table = Table(title=title, title_justify="left", show_lines=explain)
    longest = max((len(hit.id) for hit in response.hits), default=2)
    # ids are never cut: the id column is as wide as the longest (folded, never "…", should
    # a terminal be narrower); the other columns keep their words whole
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("id", style="bold", overflow="fold", min_width=longest)
    table.add_column("kind", no_wrap=True)
    table.add_column("source", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    if explain:
        table.add_column("why", min_width=20)
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
        table.add_row(*(escape(cell) for cell in row))
    _wide_enough(stdout, table).print(table)
    for example in response.examples:
        stdout.print(f"[green]curated example[/] for {escape(repr(example['question']))}:")
        stdout.print(f"  {example['query']}", highlight=False, markup=False)


def _wide_enough(console: Console, table: Table) -> Console:
    """``console``, or when its output is not a terminal (a pipe, a file: rich assumes 80
    columns) and the table needs more, a console as wide as the table needs."""
    if console.is_terminal:
        return console
    needed = console.measure(table, options=console.options.update(max_width=100_000)).minimum
    if needed <= console.width:
        return console
    return Console(file=console.file, soft_wrap=True, width=needed, no_color=console.no_color)


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


def with_root_paths(
    index_for: Callable[[str], SchemaIndex | None], response: SearchResponse
) -> dict[str, Any]:
    """The ``--json`` object; GraphQL hits also carry their shortest path from a root field
    with each step's required arguments (``"path": null`` when nothing leads there), found in
    the index serving the hit's source (``index_for(source)``)."""
    from schemaseek.paths.graphql import root_path

    payload = response.to_dict(explain=True)
    order = response.ids()
    for result, hit in zip(payload["results"], response.hits, strict=True):
        if hit.document.kind.value.startswith("graphql_"):
            index = index_for(hit.document.source)
            path = root_path(index, hit.id, prefer=order) if index is not None else None
            result["path"] = path.to_dict() if path is not None else None
    return payload
