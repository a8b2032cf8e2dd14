"""How an engine loads its newest valid generation and saves new ones, and the one way a
snapshot manager is opened (:func:`open_snapshots`: with the index layer's content check, so
every validation of a generation is the same)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from schemaseek.config import SearchSettings
from schemaseek.errors import SnapshotError
from schemaseek.index.files import check_generation
from schemaseek.signals.files import GRAPH
from schemaseek.snapshots.manager import SnapshotManager, VerifiedGeneration
from schemaseek.snapshots.retention import RetentionPolicy
from schemaseek.snapshots.store import open_store

if TYPE_CHECKING:
    from schemaseek.engine.core import SourceEngine

__all__ = ["HOLD", "HOLD_LIVE_HASH", "load_snapshot", "open_snapshots", "save_snapshot"]

#: manifest ``extra`` keys of a rolled-back generation: it holds (the source stays on it) and
#: the live schema hash when the rollback was made ("" when unknown: the first fetch sets it)
HOLD = "hold"
HOLD_LIVE_HASH = "hold_live_schema_hash"

logger = logging.getLogger(__name__)


def open_snapshots(
    location: str,
    settings: SearchSettings,
    *,
    s3_endpoint_url: str | None = None,
    s3_region: str | None = None,
) -> SnapshotManager:
    """The snapshot manager of ``location`` (a directory, ``s3://bucket/prefix`` or
    ``memory://name``) with ``settings``' retention and the generation content check."""
    return SnapshotManager(
        open_store(location, s3_endpoint_url=s3_endpoint_url, s3_region=s3_region),
        policy=RetentionPolicy(min_valid=settings.snapshot_min_generations),
        check=check_generation,
    )


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
    manifest = loaded.generation.manifest
    engine.generation = manifest.generation
    if manifest.rolled_back_from and manifest.extra.get(HOLD):
        engine.hold_rollback(str(manifest.extra.get(HOLD_LIVE_HASH) or ""))
    return True


def save_snapshot(engine: SourceEngine) -> str | None:
    """Write a generation of the current index (when it has vectors), then make the live
    keyword index the saved one, so a restart answers exactly as this process does. The save
    carries ``engine.save_token`` (a fencing token) when one is set. Returns why the save
    failed (the engine keeps serving; ``engine.generation`` stays the newest saved one), or
    None."""
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
        return f"saving the generation failed: {exc}"
    engine.report_progress("snapshot save", 1, 1)
    engine.generation = manifest.generation
    index.adopt_keyword_files(files)
    return None
