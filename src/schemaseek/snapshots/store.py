"""Where generations are kept: the store protocol and :func:`open_store`.

Keys are ``/``-separated paths relative to the store's root, e.g.
``v1/<source>/<fingerprint>/<generation>/vectors.npy``. A store lists the children of a key
prefix, reads a file as a :class:`memoryview` (memory-mapped where the store is a local
directory), and writes a generation through a :class:`GenerationWriter` that puts every data
file first and ``manifest.json`` last, on :meth:`GenerationWriter.commit`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

__all__ = ["GenerationWriter", "SnapshotStore", "open_store"]


class GenerationWriter(Protocol):
    """Writes one generation: data files, then the manifest on commit."""

    def write(self, name: str, data: bytes | memoryview) -> None:
        """Store one data file (``name`` may contain ``/``)."""
        ...

    def commit(self, manifest: bytes) -> None:
        """Write the manifest last and make the generation visible."""
        ...

    def abort(self) -> None:
        """Drop everything written so far (best effort)."""
        ...


class SnapshotStore(Protocol):
    """A place for generations (local directory, S3 bucket prefix, memory)."""

    @property
    def description(self) -> str:
        """Where this store is, for log lines (never includes credentials)."""
        ...

    def list_dir(self, prefix: str) -> list[str]:
        """Names of the files and folders directly under ``prefix``, sorted; [] if none."""
        ...

    def read(self, key: str) -> memoryview:
        """The bytes of one file; raises ``FileNotFoundError`` when it does not exist."""
        ...

    def local_path(self, key: str) -> Path | None:
        """A filesystem path of the file when the store has one, else None."""
        ...

    def begin(self, prefix: str) -> GenerationWriter:
        """Start writing the generation whose files go under ``prefix``."""
        ...

    def delete_tree(self, prefix: str) -> None:
        """Delete every file under ``prefix`` (the manifest first)."""
        ...

    def purge_partials(self, prefix: str, older_than_s: float) -> int:
        """Delete interrupted writes under ``prefix`` older than ``older_than_s``; returns how
        many. Stores whose partial writes show up as generations without a manifest do
        nothing here (retention removes those)."""
        ...

    def put(self, key: str, data: bytes) -> None:
        """Write one small file whole, replacing it (fencing records)."""
        ...

    def exclusive(self, key: str) -> AbstractContextManager[None]:
        """Hold the store-wide lock named ``key`` for the block: a file lock where the store
        is a directory (shared mounts included), a thread lock in memory; S3 has no lock,
        so there a check and the write that follows it are two requests."""
        ...


def open_store(
    location: str | Path, *, s3_endpoint_url: str | None = None, s3_region: str | None = None
) -> SnapshotStore:
    """A store for ``location``: ``s3://bucket/prefix`` (needs the ``s3`` extra),
    ``memory://name`` (process-wide, for tests), or a local directory path."""
    text = str(location)
    if text.startswith("s3://"):
        from schemaseek.snapshots.s3 import S3Store

        bucket, _, prefix = text[len("s3://") :].partition("/")
        return S3Store(bucket, prefix, endpoint_url=s3_endpoint_url, region=s3_region)
    if text.startswith("memory://"):
        from schemaseek.snapshots.memory import named_memory_store

        return named_memory_store(text[len("memory://") :])
    from schemaseek.snapshots.local import LocalDirStore

    return LocalDirStore(Path(text))
