"""``/health/ready``: 503 while no engine can serve, ``degraded`` while vectors embed or a
circuit is open, ``ready`` otherwise; and a clean exit on SIGTERM."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.service.harness import SEARCH, ServerProcess


def test_readiness_follows_engines_and_breakers(tmp_path: Path) -> None:
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "hold_fetch").touch()
    (gates / "hold_embed").touch()
    server = ServerProcess(
        tmp_path / "data",
        args=(),
        command=[sys.executable, "-m", "tests.service.gated_server"],
        env={
            "GATE_DIR": str(gates),
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "SCHEMASEEK_SNAPSHOT_DIR": "none",
            "CB_FAILURE_THRESHOLD": "2",
            "CB_COOLDOWN_MS": "1500",
            "CB_STRATEGY": "consecutive",
        },
    )
    try:
        server.wait_listening()
        reply = server.http.get("/health/ready")
        assert reply.status_code == 503 and reply.json()["status"] == "unavailable"
        assert server.http.get("/health").status_code == 200
        search = server.rpc(SEARCH + "Search", {"query": "royalty"}, None)
        assert search.status_code == 503 and search.json()["code"] == "unavailable"

        (gates / "hold_fetch").unlink()
        body = server.wait_status("degraded", timeout=60)
        assert {e["state"] for e in body["engines"].values()} <= {"degraded", "initializing"}
        answer = server.rpc(SEARCH + "Search", {"query": "money owed to artists"}, None).json()
        assert answer.get("degraded") and answer["results"], answer

        (gates / "hold_embed").unlink()
        server.wait_status("ready", timeout=60)

        (gates / "fail_query").touch()
        for question in ("artists paid", "release delivery", "contract parties"):
            server.rpc(SEARCH + "Search", {"query": question}, None)
        body = server.wait_status("degraded", timeout=10)
        assert body["engines"]["music_api"]["circuits"]["embed_query"] == "open"
        assert server.http.get("/health/ready").status_code == 200

        (gates / "fail_query").unlink()
        time.sleep(1.7)
        answer = server.rpc(SEARCH + "Search", {"query": "label territories"}, None).json()
        assert not answer.get("degraded", False)
        server.wait_status("ready", timeout=10)
    finally:
        code = server.stop()
    assert code == 0
