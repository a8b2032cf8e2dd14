"""Generations in an S3 bucket (or any S3-compatible server), through boto3 (extra ``s3``).

S3 has no rename, so the writer uploads every data file first and ``manifest.json`` last: a
generation without a manifest is an interrupted write, never loaded, and deleted by retention
once old. Deletion removes the manifest first, so a half-deleted generation is not loadable
either. Credentials come from boto3's usual chain (environment, config files, instance role)
and are never logged or stored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from schemaseek.errors import MissingExtraError
from schemaseek.snapshots.manifest import MANIFEST

__all__ = ["S3Store"]

_DELETE_BATCH = 1000


class _S3Writer:
    def __init__(self, store: S3Store, prefix: str) -> None:
        self._store = store
        self._prefix = prefix.rstrip("/")
        self._written: list[str] = []

    def write(self, name: str, data: bytes | memoryview) -> None:
        key = f"{self._prefix}/{name}"
        self._store._put(key, bytes(data))
        self._written.append(key)

    def commit(self, manifest: bytes) -> None:
        self._store._put(f"{self._prefix}/{MANIFEST}", manifest)

    def abort(self) -> None:
        self._store._delete_keys(self._store._full(k) for k in self._written)


class S3Store:
    """Generations under ``s3://bucket/prefix``.

    Args:
        bucket: the bucket name.
        prefix: a key prefix inside the bucket ("" for the bucket root).
        endpoint_url: an S3-compatible endpoint (MinIO, a local test server).
        region: the bucket's region (default: boto3's own configuration).
        client: a ready boto3 S3 client (overrides ``endpoint_url``).
    """

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        client: Any = None,
    ) -> None:
        if client is None:
            try:
                import boto3
            except ImportError:
                raise MissingExtraError("boto3", "s3") from None
            client = boto3.client("s3", endpoint_url=endpoint_url, region_name=region)
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self._client = client

    @property
    def description(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    def _full(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def list_dir(self, prefix: str) -> list[str]:
        start = self._full(prefix).rstrip("/") + "/" if prefix or self.prefix else ""
        names: set[str] = set()
        paginator = self._client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=start, Delimiter="/"):
            for common in page.get("CommonPrefixes", []):
                names.add(common["Prefix"][len(start) :].rstrip("/"))
            for item in page.get("Contents", []):
                names.add(item["Key"][len(start) :])
        return sorted(n for n in names if n)

    def read(self, key: str) -> memoryview:
        try:
            response = self._client.get_object(Bucket=self.bucket, Key=self._full(key))
        except self._client.exceptions.NoSuchKey:
            raise FileNotFoundError(key) from None
        return memoryview(response["Body"].read())

    def local_path(self, key: str) -> Path | None:
        return None

    def begin(self, prefix: str) -> _S3Writer:
        return _S3Writer(self, prefix)

    def delete_tree(self, prefix: str) -> None:
        start = self._full(prefix).rstrip("/") + "/"
        keys: list[str] = []
        paginator = self._client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=start):
            keys.extend(item["Key"] for item in page.get("Contents", []))
        manifest = start + MANIFEST
        if manifest in keys:
            self._delete_keys([manifest])
        self._delete_keys(k for k in keys if k != manifest)

    def purge_partials(self, prefix: str, older_than_s: float) -> int:
        return 0

    def put(self, key: str, data: bytes) -> None:
        self._put(key, data)

    @contextlib.contextmanager
    def exclusive(self, key: str) -> Iterator[None]:
        yield  # S3 has no lock: the fence check and the manifest upload are two requests

    def _put(self, key: str, data: bytes) -> None:
        self._client.put_object(Bucket=self.bucket, Key=self._full(key), Body=data)

    def _delete_keys(self, keys: Any) -> None:
        batch: list[dict[str, str]] = []
        for key in keys:
            batch.append({"Key": key})
            if len(batch) == _DELETE_BATCH:
                self._client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch})
                batch = []
        if batch:
            self._client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch})
