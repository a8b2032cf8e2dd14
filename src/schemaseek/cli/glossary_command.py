"""``schemaseek glossary lint``: check a glossary against the configured sources.

Exit codes: 0 without an error-level finding, 1 with one, 2 for usage errors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from schemaseek.cli.options import SourceOptions, resolve
from schemaseek.cli.output import print_json, stdout
from schemaseek.cli.source_params import with_source_options
from schemaseek.errors import ConfigError, SourceError

__all__ = ["glossary_app", "read_questions"]

glossary_app = typer.Typer(
    help="Work with the glossary: lint it against the sources.", no_args_is_help=True
)
_STYLE = {"error": "red", "warning": "yellow", "info": "dim"}


def read_questions(path: Path) -> list[str]:
    """Questions of a JSONL file (any row with ``question``: the eval formats), a JSON file
    (``{"questions": [...]}`` or a list), or a text file with one question per line."""
    if path.suffix == ".jsonl" or path.name.endswith(".jsonl.xz"):
        from schemaseek.sources.catalog import iter_jsonl

        rows = [row.get("question") for _n, row in iter_jsonl(path)]
        return [str(q) for q in rows if q]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceError(f"{path}: cannot read the questions: {exc}") from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SourceError(f"{path}: not JSON: {exc}") from None
        items = data.get("questions") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise SourceError(f"{path}: expected a list of questions or {{'questions': [...]}}")
        return [str(q.get("question") if isinstance(q, dict) else q) for q in items if q]
    return [line.strip() for line in text.splitlines() if line.strip()]


@glossary_app.command("lint")
@with_source_options
def lint_command(
    sources: SourceOptions,
    queries: Annotated[
        Path | None,
        typer.Option(
            "--queries", exists=True, help="Questions (JSONL, JSON or text): report unused terms."
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check the glossary against the sources: unknown targets (with suggestions), entries
    no source can serve, duplicate or overlapping terms, terms no question fires (--queries),
    prefer chains and cycles, examples that do not validate. Exit 1 on an error-level finding.

    Example: schemaseek glossary lint --config schemaseek.toml --queries questions.jsonl
    """
    selection = resolve(sources)
    if not selection.glossary.entries:
        raise ConfigError("no glossary to lint: give --glossary FILE (or a --config naming one)")
    questions = read_questions(queries) if queries is not None else None
    from schemaseek.glossary_lint import lint_glossary  # graphql-core, rapidfuzz: on use

    report = lint_glossary(selection.glossary, selection.sources, questions)
    if json_out:
        print_json({"glossary": str(sources.glossary or selection.label)} | report.to_json())
    else:
        title = f"glossary lint: {report.entries} entries against {', '.join(report.sources)}" + (
            f", {report.questions} questions" if report.questions is not None else ""
        )
        table = Table(title=title, title_justify="left", show_lines=False)
        for column in ("level", "code", "entry", "finding"):
            table.add_column(column)
        for f in report.findings:
            style = _STYLE[f.level]
            table.add_row(f"[{style}]{f.level}[/]", f.code, str(f.entry), f.message)
        if report.findings:
            stdout.print(table)
        counts = ", ".join(f"{report.count(level)} {level}" for level in ("error", "warning"))
        stdout.print(f"{title}: {counts}, {report.count('info')} info")
    if report.failed:
        raise typer.Exit(1)
