"""How an engine loads its newest valid generation and saves new ones."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from schemaseek.signals.files import GRAPH

if TYPE_CHECKING:
    from schemaseek.engine.core import SourceEngine

__all__ = ["load_snapshot", "save_snapshot"]

logger = logging.getLogger(__name__)


def load_snapshot(engine: SourceEngine) -> bool:
    """Serve the newest valid generation of the engine's source and fingerprint; False when
    there is none (cold start)."""
    if engine.snapshots is None or engine.fingerprint is None:
        return False
    index = engine.index
    engine.report_progress("snapshot load", 0, 1)
    loaded = engine.snapshots.load(
        engine.name,
        engine.fingerprint,
        lambda g: index.restore_files(
            g.files,
            local_paths=g.local_paths,
            documents=g.manifest.documents,
            vectors=bool(g.manifest.vectors),
        ),
    )
    engine.report_progress("snapshot load", 1, 1)
    if loaded is None:
        return False
    engine.generation = loaded.generation.manifest.generation
    return True


def save_snapshot(engine: SourceEngine) -> None:
    """Write a generation of the current index (when it has vectors), then make the live
    keyword index the saved one, so a restart answers exactly as this process does."""
    index = engine.index
    if engine.snapshots is None or engine.fingerprint is None or index.degraded:
        return
    engine.report_progress("snapshot save", 0, 1)
    try:
        files = index.export_files()
        manifest = engine.snapshots.save(
            engine.name,
            engine.fingerprint,
            files,
            schema_hash=index.sources[0].schema_hash,
            documents=index.document_count,
            vectors=index.vector_count,
            ann_graph=GRAPH in files,
            parent=engine.generation,
        )
    except Exception as exc:  # serving goes on; the next change saves again
        logger.warning("saving a snapshot of source %r failed: %s", engine.name, exc)
        engine.report_progress("snapshot save", 1, 1)
        return
    engine.report_progress("snapshot save", 1, 1)
    engine.generation = manifest.generation
    index.adopt_keyword_files(files)
