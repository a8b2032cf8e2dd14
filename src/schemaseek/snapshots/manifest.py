"""``manifest.json``: the last file of a generation, describing and sealing the others.

A generation is loadable only when its manifest parses, names this format version, matches the
source, fingerprint and generation id of the place it was found, and every file it lists has
exactly the recorded size and SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from schemaseek.errors import SnapshotError
from schemaseek.snapshots.fingerprint import EmbeddingFingerprint

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST",
    "FileEntry",
    "Manifest",
    "SnapshotError",
    "file_entry",
    "new_generation_id",
    "parse_generation_time",
]

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
_KIND = "schemaseek-snapshot"
_ID_TIME = "%Y%m%dT%H%M%S%fZ"


@dataclass(frozen=True, slots=True)
class FileEntry:
    """Size in bytes and SHA-256 (hex) of one data file."""

    size: int
    sha256: str


def file_entry(data: bytes | memoryview) -> FileEntry:
    """The entry describing ``data``."""
    return FileEntry(len(data), hashlib.sha256(data).hexdigest())


def new_generation_id(now: float) -> str:
    """A sortable id: UTC time to the microsecond, then 6 random hex digits."""
    stamp = datetime.fromtimestamp(now, UTC).strftime(_ID_TIME)
    return f"{stamp}-{secrets.token_hex(3)}"


def parse_generation_time(generation: str) -> float | None:
    """The creation time encoded in a generation id, or None when it is not one."""
    try:
        return (
            datetime.strptime(generation.split("-", 1)[0], _ID_TIME).replace(tzinfo=UTC).timestamp()
        )
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Manifest:
    """Everything a loader checks before trusting a generation."""

    source: str
    generation: str
    fingerprint: EmbeddingFingerprint
    schema_hash: str
    documents: int
    vectors: int
    created_unix: float
    files: Mapping[str, FileEntry]
    ann_graph: bool = False
    parent: str | None = None
    rolled_back_from: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    format: int = FORMAT_VERSION

    @property
    def model_id(self) -> str:
        return self.fingerprint.model

    @property
    def dimensions(self) -> int:
        return self.fingerprint.dimensions

    @property
    def created_at(self) -> str:
        """ISO-8601 UTC creation time."""
        return datetime.fromtimestamp(self.created_unix, UTC).isoformat().replace("+00:00", "Z")

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.files.values())

    def to_json(self) -> bytes:
        """Canonical UTF-8 JSON (sorted keys)."""
        payload = {
            "kind": _KIND,
            "format": self.format,
            "source": self.source,
            "generation": self.generation,
            "created_at": self.created_at,
            "created_unix": self.created_unix,
            "fingerprint": self.fingerprint.key,
            "embedding": self.fingerprint.to_dict(),
            "model_id": self.model_id,
            "dimensions": self.dimensions,
            "schema_hash": self.schema_hash,
            "documents": self.documents,
            "vectors": self.vectors,
            "ann_graph": self.ann_graph,
            "parent": self.parent,
            "rolled_back_from": self.rolled_back_from,
            "extra": dict(self.extra),
            "files": {
                name: {"size": entry.size, "sha256": entry.sha256}
                for name, entry in sorted(self.files.items())
            },
        }
        return json.dumps(payload, sort_keys=True, ensure_ascii=False, indent=1).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        """Parse and shape-check a manifest; raises :class:`SnapshotError`."""
        try:
            raw = json.loads(data)
            if not isinstance(raw, dict) or raw.get("kind") != _KIND:
                raise SnapshotError("not a schemaseek snapshot manifest")
            files = {
                str(name): FileEntry(int(entry["size"]), str(entry["sha256"]))
                for name, entry in raw["files"].items()
            }
            fingerprint = EmbeddingFingerprint.from_dict(raw["embedding"])
            manifest = cls(
                source=str(raw["source"]),
                generation=str(raw["generation"]),
                fingerprint=fingerprint,
                schema_hash=str(raw["schema_hash"]),
                documents=int(raw["documents"]),
                vectors=int(raw["vectors"]),
                created_unix=float(raw["created_unix"]),
                files=files,
                ann_graph=bool(raw.get("ann_graph", False)),
                parent=raw.get("parent"),
                rolled_back_from=raw.get("rolled_back_from"),
                extra=dict(raw.get("extra") or {}),
                format=int(raw["format"]),
            )
        except SnapshotError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SnapshotError(f"manifest is malformed: {exc!r}") from None
        if raw.get("fingerprint") != fingerprint.key:
            raise SnapshotError("manifest fingerprint does not match its embedding fields")
        return manifest

    def check_place(self, source: str, fingerprint_key: str, generation: str) -> None:
        """Raise :class:`SnapshotError` unless the manifest belongs where it was found."""
        if self.format != FORMAT_VERSION:
            raise SnapshotError(f"format {self.format}, this version reads {FORMAT_VERSION}")
        if self.source != source:
            raise SnapshotError(f"manifest is for source {self.source!r}, not {source!r}")
        if self.fingerprint.key != fingerprint_key:
            raise SnapshotError("manifest fingerprint does not match its directory")
        if self.generation != generation:
            raise SnapshotError(f"manifest names generation {self.generation!r}")
        if MANIFEST in self.files or any(".." in name.split("/") for name in self.files):
            raise SnapshotError("manifest lists an invalid file name")
