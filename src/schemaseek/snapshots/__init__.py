"""Snapshot generations: immutable, verified, crash-safe copies of an index.

Layout ``<root>/v<format>/<source>/<embedding-fingerprint>/<generation-id>/`` with the data
files first and ``manifest.json`` last (sizes, SHA-256, schema hash, model, dimensions,
document count, creation time). See :mod:`schemaseek.snapshots.manager` for loading with
fallback, retention and rollback, and the stores: :mod:`~schemaseek.snapshots.local` (default),
:mod:`~schemaseek.snapshots.s3` (extra ``s3``), :mod:`~schemaseek.snapshots.memory`.
"""

from __future__ import annotations

from schemaseek.snapshots.fingerprint import EmbeddingFingerprint, fingerprint_of
from schemaseek.snapshots.manager import GenerationInfo, SnapshotManager, VerifiedGeneration
from schemaseek.snapshots.manifest import FORMAT_VERSION, Manifest, SnapshotError
from schemaseek.snapshots.retention import RetentionPolicy, compute_retention
from schemaseek.snapshots.store import SnapshotStore, open_store

__all__ = [
    "FORMAT_VERSION",
    "EmbeddingFingerprint",
    "GenerationInfo",
    "Manifest",
    "RetentionPolicy",
    "SnapshotError",
    "SnapshotManager",
    "SnapshotStore",
    "VerifiedGeneration",
    "compute_retention",
    "fingerprint_of",
    "open_store",
]
