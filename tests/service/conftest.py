"""Fixtures: gRPC stubs generated from the protos, a warm snapshot store, a demo server."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.service.harness import REPO, TOKENS, ServerProcess


@pytest.fixture(scope="session")
def grpc_modules(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleType]:
    """grpcio stubs generated with grpcio-tools, under the package name ``sspb`` (the real
    ``schemaseek`` package would shadow ``schemaseek.v1``)."""
    out = tmp_path_factory.mktemp("grpcgen")
    # the contract's own protos only (the standard grpc.* ones come with grpcio's packages)
    protos = [
        str(p.relative_to(REPO / "proto")) for p in (REPO / "proto/schemaseek").rglob("*.proto")
    ]
    subprocess.run(
        [
            sys.executable, "-m", "grpc_tools.protoc", f"-I{REPO / 'proto'}",
            f"--python_out={out}", f"--grpc_python_out={out}", *protos,
        ],
        check=True,
    )  # fmt: skip
    (out / "schemaseek").rename(out / "sspb")
    for path in (out / "sspb").rglob("*.py"):
        text = path.read_text().replace("from schemaseek.v1 import", "from sspb.v1 import")
        path.write_text(text)
    for folder in (out / "sspb", out / "sspb" / "v1"):
        (folder / "__init__.py").touch()
    sys.path.insert(0, str(out))
    names = ("search_pb2", "search_pb2_grpc", "admin_pb2", "admin_pb2_grpc")
    return {name: importlib.import_module(f"sspb.v1.{name}") for name in names}


@pytest.fixture(scope="session")
def warm_snapshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot store holding the demo's generations (one cold start, shared)."""
    root = tmp_path_factory.mktemp("warm")
    server = ServerProcess(root / "data", env={"SCHEMASEEK_SNAPSHOT_DIR": str(root / "snaps")})
    try:
        server.wait_status("ready", timeout=300)
    finally:
        server.stop()
    return root / "snaps"


def warm_copy(warm: Path, target: Path) -> Path:
    """A private copy of the warm store (for tests that write generations)."""
    shutil.copytree(warm, target)
    return target


def token_server(root: Path, warm: Path) -> ServerProcess:
    """The demo with tokens (not yet ready), served from a private copy of the warm store."""
    return ServerProcess(
        root / "data",
        env={
            "SCHEMASEEK_SNAPSHOT_DIR": str(warm_copy(warm, root / "snaps")),
            "SCHEMASEEK_TOKENS": TOKENS,
            "RATE_LIMIT_MAX": "100000",
        },
    )


def serving_demo(warm: Path, root: Path) -> Iterator[ServerProcess]:
    """The demo with tokens, served from a copy of the warm store under ``root``, ready."""
    server = token_server(root, warm)
    try:
        server.wait_status("ready", timeout=120)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def demo_server(
    warm_snapshots: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """The demo with tokens, served from the warm store (read-mostly: tests share it)."""
    yield from serving_demo(warm_snapshots, tmp_path_factory.mktemp("demo"))


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"
