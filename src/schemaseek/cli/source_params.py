"""The source options, declared once for every command that reads sources.

``search``, ``index`` and ``mcp`` take the same options (``--demo``, ``--sdl``,
``--introspection``, ``--database-url`` with ``--schema``/``--allow``/``--block``,
``--graphql-url`` with ``--header``, ``--config``, ``--glossary``, ``--no-glossary``). A command
decorated with :func:`with_source_options` declares a ``sources: SourceOptions`` parameter
instead; the decorator puts the options into the signature typer reads and hands the command
one :class:`~schemaseek.cli.options.SourceOptions`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from schemaseek.cli.options import SourceOptions

__all__ = ["with_source_options"]


def _source_parameters(
    demo: Annotated[bool, typer.Option("--demo", help="Use the embedded music-company demo.")] = (
        False
    ),
    sdl: Annotated[
        Path | None, typer.Option("--sdl", help="GraphQL SDL file.", exists=True)
    ] = None,
    introspection: Annotated[
        Path | None,
        typer.Option("--introspection", help="GraphQL introspection JSON.", exists=True),
    ] = None,
    graphql_url: Annotated[
        str | None, typer.Option("--graphql-url", help="Live GraphQL endpoint to introspect.")
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", help="'Name: value' for --graphql-url; value env:VAR reads VAR."),
    ] = None,
    database_url: Annotated[
        str | None, typer.Option("--database-url", help="SQLAlchemy URL of a SQL database.")
    ] = None,
    schema: Annotated[
        list[str] | None,
        typer.Option("--schema", help="Database schema to index (repeatable)."),
    ] = None,
    allow: Annotated[
        list[str] | None,
        typer.Option("--allow", help="Only tables whose id starts so, or matches re:REGEX."),
    ] = None,
    block: Annotated[
        list[str] | None,
        typer.Option("--block", help="Skip tables whose id starts so, or matches re:REGEX."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="schemaseek.toml with several sources.")
    ] = None,
    glossary: Annotated[Path | None, typer.Option("--glossary", help="Glossary JSON file.")] = None,
    no_glossary: Annotated[
        bool, typer.Option("--no-glossary", help="Use no glossary at all.")
    ] = False,
) -> SourceOptions:
    """The options as one :class:`SourceOptions` (this function's signature is what typer
    shows; its body is what the decorated command receives)."""
    return SourceOptions(
        demo=demo,
        sdl=sdl,
        introspection=introspection,
        graphql_url=graphql_url,
        headers=tuple(header or ()),
        database_url=database_url,
        schemas=tuple(schema or ()),
        allow=tuple(allow or ()),
        block=tuple(block or ()),
        config=config,
        glossary=glossary,
        no_glossary=no_glossary,
    )


_SOURCE_SIGNATURE = inspect.signature(_source_parameters, eval_str=True)


def with_source_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command(..., sources: SourceOptions)`` as a typer command taking the source options
    (placed after the command's own arguments, before its other options)."""
    own = inspect.signature(command, eval_str=True)
    if "sources" not in own.parameters:
        raise TypeError(f"{command.__name__} takes no 'sources' parameter")
    mine = [p for p in own.parameters.values() if p.name != "sources"]
    positional = [p for p in mine if p.default is inspect.Parameter.empty]
    keyword = [p for p in mine if p.default is not inspect.Parameter.empty]
    shared = list(_SOURCE_SIGNATURE.parameters.values())
    clash = {p.name for p in mine} & {p.name for p in shared}
    if clash:
        raise TypeError(f"{command.__name__} redeclares source options: {sorted(clash)}")

    @functools.wraps(command)
    def typer_command(**values: Any) -> None:
        picked = {p.name: values.pop(p.name) for p in shared}
        command(sources=_source_parameters(**picked), **values)

    parameters = [*positional, *shared, *keyword]
    setattr(typer_command, "__signature__", own.replace(parameters=parameters))  # noqa: B010
    typer_command.__annotations__ = {p.name: p.annotation for p in parameters}
    return typer_command
