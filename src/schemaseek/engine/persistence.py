"""How an engine loads its newest valid generation and saves new ones."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from schemaseek import index_state
from schemaseek.snapshots.signal_state import GRAPH, restore_keyword

if TYPE_CHECKING:
    from schemaseek.engine.core import SourceEngine

__all__ = ["load_snapshot", "save_snapshot"]

logger = logging.getLogger(__name__)


def load_snapshot(engine: SourceEngine) -> bool:
    """Serve the newest valid generation of the engine's source and fingerprint; False when
    there is none (cold start)."""
    if engine.snapshots is None or engine.fingerprint is None:
        return False
    loaded = engine.snapshots.load(
        engine.name, engine.fingerprint, lambda g: index_state.restore_state(engine.index, g)
    )
    if loaded is None:
        return False
    manifest = loaded.generation.manifest
    engine.generation = manifest.generation
    engine._schema_hash = manifest.schema_hash
    documents = loaded.value
    engine._hashes = {d: documents.content_hash(d) for d in documents}
    return True


def save_snapshot(engine: SourceEngine) -> None:
    """Write a generation of the current index (when it has vectors), then make the live
    keyword index the saved one, so a restart answers exactly as this process does. The ANN
    graph is built first when the index is large enough, so it is saved, never rebuilt."""
    index = engine.index
    parts = index._require()
    if engine.snapshots is None or engine.fingerprint is None or not parts.vectors_ready:
        return
    vector = parts.vector
    if vector is not None and len(vector) >= vector.exact_threshold and not vector.graph_built:
        vector.build()
    try:
        files = index_state.export_state(index, engine._hashes)
        manifest = engine.snapshots.save(
            engine.name,
            engine.fingerprint,
            files,
            schema_hash=engine._schema_hash or "",
            documents=len(parts.documents),
            vectors=len(vector) if vector is not None else 0,
            ann_graph=GRAPH in files,
            parent=engine.generation,
        )
    except Exception as exc:  # serving goes on; the next change saves again
        logger.warning("saving a snapshot of source %r failed: %s", engine.name, exc)
        return
    engine.generation = manifest.generation
    settings = index.settings
    keyword = restore_keyword(
        {name: memoryview(data) for name, data in files.items()},
        settings.keyword_field_weights,
        settings.prefix_min_results,
    )
    with index._lock:
        parts.keyword = keyword
