"""Fixtures of the cluster tests: real Redis (a key prefix per test), a private Redis server
the test can stop and start, and moto's S3 server on a loopback port."""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.services import (  # noqa: F401 (fixtures)
    bucket,
    redis_address,
    s3_endpoint,
    unavailable,
)


@pytest.fixture()
def redis_url(redis_address: tuple[str, int]) -> Iterator[str]:  # noqa: F811
    """``redis://host:port/0`` of the machine's Redis; the test's keys share the prefix
    :func:`redis_prefix` yields, and are deleted afterwards."""
    host, port = redis_address
    yield f"redis://{host}:{port}/0"


@pytest.fixture()
def redis_prefix(redis_url: str) -> Iterator[str]:
    import redis

    prefix = f"schemaseek-test:{secrets.token_hex(4)}:"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A ``redis-server`` of this test's own (no persistence) that it stops and restarts."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("redis-server is not installed, so no private Redis can be started")
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@pytest.fixture()
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture()
def s3_bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:  # noqa: F811
    """A fresh bucket on the moto server (emptied and deleted afterwards)."""
    name = f"replicas-{secrets.token_hex(4)}"
    with bucket(s3_endpoint, name, monkeypatch):
        yield name
