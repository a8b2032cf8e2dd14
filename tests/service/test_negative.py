"""Refusals: authentication, roles, rate limits, input limits, cursor integrity, binding."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import grpc
import pytest

from tests.service.harness import (
    ADMIN,
    SEARCH,
    SEARCH_TOKEN,
    TOKENS,
    ServerProcess,
    free_port,
)

QUESTION = "royalty payments for Sony"


def _code(server: ServerProcess, path: str, body: dict[str, object], token: str | None) -> str:
    reply = server.rpc(path, body, token)
    assert 400 <= reply.status_code < 500, reply.text
    code: str = reply.json()["code"]
    return code


def test_missing_and_invalid_tokens_are_unauthenticated(demo_server: ServerProcess) -> None:
    assert _code(demo_server, SEARCH + "Search", {"query": QUESTION}, None) == "unauthenticated"
    assert _code(demo_server, SEARCH + "Search", {"query": QUESTION}, "nope") == "unauthenticated"


def test_search_token_on_admin_is_permission_denied(demo_server: ServerProcess) -> None:
    assert _code(demo_server, ADMIN + "GetConfig", {}, SEARCH_TOKEN) == "permission_denied"


@pytest.mark.parametrize(
    "body",
    [
        {"query": "x" * 2049},
        {"query": ""},
        {"query": "   "},
        {"query": QUESTION, "limit": -1},
        {"query": QUESTION, "limit": 201},
        {"query": QUESTION, "mode": "psychic"},
        {"query": QUESTION, "kinds": ["nonsense"]},
        {"query": QUESTION, "cursor": "forged.cursor"},
        {"query": QUESTION, "cursor": "eyJzIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA"},
    ],
)
def test_bad_input_is_invalid_argument(demo_server: ServerProcess, body: dict[str, object]) -> None:
    assert _code(demo_server, SEARCH + "Search", body, SEARCH_TOKEN) == "invalid_argument"


def test_edited_or_reused_cursors_are_invalid(demo_server: ServerProcess) -> None:
    first = demo_server.rpc(SEARCH + "Search", {"query": QUESTION, "limit": 2}, SEARCH_TOKEN)
    cursor = first.json()["nextCursor"]
    body, tag = cursor.split(".")
    edited = ("A" if body[0] != "A" else "B") + body[1:] + "." + tag
    for bad in (edited, cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")):
        body_ = {"query": QUESTION, "cursor": bad}
        assert _code(demo_server, SEARCH + "Search", body_, SEARCH_TOKEN) == "invalid_argument"
    other = {"query": "a different question", "cursor": cursor}
    assert _code(demo_server, SEARCH + "Search", other, SEARCH_TOKEN) == "invalid_argument"


def test_grpc_codes(demo_server: ServerProcess, grpc_modules: dict[str, ModuleType]) -> None:
    pb, pb_grpc = grpc_modules["search_pb2"], grpc_modules["search_pb2_grpc"]
    admin_pb, admin_grpc = grpc_modules["admin_pb2"], grpc_modules["admin_pb2_grpc"]
    auth = [("authorization", f"Bearer {SEARCH_TOKEN}")]
    with grpc.insecure_channel(f"127.0.0.1:{demo_server.port}") as channel:
        stub, admin = pb_grpc.SearchServiceStub(channel), admin_grpc.AdminServiceStub(channel)
        cases: list[tuple[Callable[[], object], str]] = [
            (lambda: stub.Search(pb.SearchRequest(query=QUESTION), timeout=5), "UNAUTHENTICATED"),
            (
                lambda: admin.GetEngines(admin_pb.GetEnginesRequest(), timeout=5, metadata=auth),
                "PERMISSION_DENIED",
            ),
            (
                lambda: stub.Search(
                    pb.SearchRequest(query="q", limit=999), timeout=5, metadata=auth
                ),
                "INVALID_ARGUMENT",
            ),
        ]
        for call, expected in cases:
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert caught.value.code().name == expected


def test_over_the_rate_limit_is_resource_exhausted(warm_snapshots: Path, tmp_path: Path) -> None:
    server = ServerProcess(
        tmp_path / "data",
        env={
            "SCHEMASEEK_SNAPSHOT_DIR": str(warm_snapshots),
            "SCHEMASEEK_TOKENS": TOKENS,
            "RATE_LIMIT_MAX": "5",
            "RATE_LIMIT_WINDOW_MS": "60000",
            "SCHEMASEEK_POLL": "false",
        },
    )
    try:
        server.wait_listening()
        codes = [
            server.rpc(SEARCH + "Search", {"query": QUESTION}, SEARCH_TOKEN).status_code
            for _ in range(8)
        ]
        reply = server.rpc(SEARCH + "Search", {"query": QUESTION}, SEARCH_TOKEN)
    finally:
        server.stop()
    assert codes.count(429) >= 3 and 429 not in codes[:5]
    assert reply.json()["code"] == "resource_exhausted" and int(reply.headers["retry-after"]) >= 1


def test_refuses_non_loopback_without_tokens(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).parent / "schemaseek")
    result = subprocess.run(
        [exe, "serve", "--demo", "--host", "0.0.0.0", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "SCHEMASEEK_DATA_DIR": str(tmp_path)},
    )
    assert result.returncode == 2
    assert "refusing to listen on 0.0.0.0 without tokens" in result.stderr


def test_invalid_configuration_is_reported_clearly(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).parent / "schemaseek")
    result = subprocess.run(
        [exe, "serve", "--demo", "--port", "8081"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "RRF_K": "0", "SCHEMASEEK_RATE_LIMIT_MAX": "lots"},
    )
    assert result.returncode == 2
    assert "rrf_k" in result.stderr and "rate_limit_max" in result.stderr
