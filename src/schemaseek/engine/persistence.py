"""How an engine loads its newest valid generation and saves new ones."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from schemaseek.errors import SnapshotError
from schemaseek.signals.files import GRAPH
from schemaseek.snapshots.manager import VerifiedGeneration

if TYPE_CHECKING:
    from schemaseek.engine.core import SourceEngine

__all__ = ["load_snapshot", "save_snapshot"]

logger = logging.getLogger(__name__)


def load_snapshot(engine: SourceEngine, generation: str | None = None) -> bool:
    """Serve the newest valid generation of the engine's source and fingerprint; False when
    there is none (cold start). With ``generation``, serve exactly that one or raise
    :class:`SnapshotError` (the serving index is then untouched)."""
    if engine.snapshots is None or engine.fingerprint is None:
        if generation is not None:
            raise SnapshotError(f"engine {engine.name!r} has no snapshot store")
        return False
    index = engine.index

    def restore(g: VerifiedGeneration) -> None:
        index.restore_files(
            g.files,
            local_paths=g.local_paths,
            documents=g.manifest.documents,
            vectors=bool(g.manifest.vectors),
        )

    engine.report_progress("snapshot load", 0, 1)
    if generation is not None:
        loaded = engine.snapshots.load_generation(
            engine.name, engine.fingerprint, generation, restore
        )
    else:
        found = engine.snapshots.load(engine.name, engine.fingerprint, restore)
        if found is None:
            engine.report_progress("snapshot load", 1, 1)
            return False
        loaded = found
    engine.report_progress("snapshot load", 1, 1)
    engine.generation = loaded.generation.manifest.generation
    return True


def save_snapshot(engine: SourceEngine) -> str | None:
    """Write a generation of the current index (when it has vectors), then make the live
    keyword index the saved one, so a restart answers exactly as this process does. The save
    carries ``engine.save_token`` (a fencing token) when one is set. Returns why the save
    failed, or None."""
    index = engine.index
    if engine.snapshots is None or engine.fingerprint is None or index.degraded:
        return None
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
            fencing_token=engine.save_token,
        )
    except Exception as exc:  # serving goes on; the next change saves again
        logger.warning("saving a snapshot of source %r failed: %s", engine.name, exc)
        engine.report_progress("snapshot save", 1, 1)
        return str(exc)
    engine.report_progress("snapshot save", 1, 1)
    engine.generation = manifest.generation
    index.adopt_keyword_files(files)
    return None
