"""The local engines a command serves from (:class:`~schemaseek.engine.local.LocalEngines`):
``search``, ``index`` and ``mcp`` open them the same way, over the data directory (or an explicit
``--snapshot-dir``) with the content-hash embedding cache, unless ``--no-cache`` is given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from schemaseek.cli.options import SourceOptions, plan

if TYPE_CHECKING:
    from schemaseek.engine.local import LocalEngines
    from schemaseek.progress import StageProgress

__all__ = ["NoCacheOpt", "cache_report", "open_engines", "started_engines"]

NoCacheOpt = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Keep nothing: embed every document again and save no snapshot (default: the data "
        "directory, $SCHEMASEEK_DATA_DIR, keeps both, so later runs start warm).",
    ),
]


def open_engines(
    sources: SourceOptions,
    snapshot_dir: str | None,
    *,
    embed: bool = True,
    keep: bool = True,
    progress: StageProgress | None = None,
) -> LocalEngines:
    """The (not yet started) engines of ``sources``: their generations in the data directory,
    one store per source, or all in ``snapshot_dir`` by name; ``embed=False`` serves keyword
    and glossary only (no model is loaded); ``keep=False`` keeps nothing (``--no-cache``)."""
    from schemaseek.config import data_dir, default_cache_dir
    from schemaseek.embedding.factory import provider_from_settings
    from schemaseek.engine.local import LocalEngines

    planned = plan(sources)
    keyed = snapshot_dir is None
    store_root = (data_dir() / "snapshots") if keyed else snapshot_dir
    return LocalEngines(
        planned.sources,
        glossary=planned.glossary,
        settings=planned.settings,
        provider=provider_from_settings(planned.settings) if embed else None,
        store_root=store_root if keep else None,
        cache_dir=default_cache_dir() / "embeddings" if embed and keep else None,
        keyed=keyed,
        progress=progress,
        label=planned.label,
    )


def started_engines(
    sources: SourceOptions, *, keep: bool = True, progress: StageProgress | None = None
) -> LocalEngines:
    """:func:`open_engines` over the data directory, started with every vector in place
    (closed again when starting fails)."""
    engines = open_engines(sources, None, keep=keep, progress=progress)
    try:
        engines.start(wait_for_vectors=True)
    except BaseException:
        engines.close()
        raise
    return engines


def cache_report(engines: LocalEngines) -> dict[str, Any]:
    """What this run kept and reused: sources served warm, documents embedded, model calls
    for the question and its candidates, whether vectors are still being built."""
    return {
        "warm": list(engines.warm),
        "embedded_documents": engines.embedded_documents,
        "question_model_calls": engines.question_model_calls,
        "building": engines.building,
    }
