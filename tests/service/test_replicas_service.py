"""Two ``schemaseek serve`` replicas on one snapshot directory, coordinating through real
Redis: both serve the same generation, GetEngines and /health/ready show the coordination,
and Redis holds nothing but coordination state."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.services import redis_address  # noqa: F401 (fixture)
from tests.service.conftest import warm_copy
from tests.service.harness import ADMIN, TOKENS, ServerProcess

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture()
def redis_env(redis_address: tuple[str, int]) -> Iterator[dict[str, str]]:  # noqa: F811
    import redis

    host, port = redis_address
    prefix = f"schemaseek-test:{secrets.token_hex(4)}:"
    yield {"SCHEMASEEK_REDIS_URL": f"redis://{host}:{port}/0", "SCHEMASEEK_REDIS_PREFIX": prefix}
    client = redis.Redis(host=host, port=port)
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


def test_two_replicas_coordinate(
    warm_snapshots: Path, tmp_path: Path, redis_env: dict[str, str]
) -> None:
    import redis

    shared = warm_copy(warm_snapshots, tmp_path / "snaps")
    env = {**redis_env, "SCHEMASEEK_SNAPSHOT_DIR": str(shared), "SCHEMASEEK_TOKENS": TOKENS}
    servers = [ServerProcess(tmp_path / f"r{i}", env=env) for i in range(2)]
    try:
        bodies = [s.wait_status("ready", timeout=180) for s in servers]
        for body in bodies:
            for engine in body["engines"].values():
                assert engine["coordination"]["redis"] == "up"
        engines = [
            {e["source"]: e for e in s.rpc(ADMIN + "GetEngines", {}).json()["engines"]}
            for s in servers
        ]
        assert engines[0].keys() == engines[1].keys() == {"music_api", "music_db"}
        for source in engines[0]:
            a, b = engines[0][source], engines[1][source]
            assert a["generation"] == b["generation"] != ""
            assert a["coordination"]["replica"] != b["coordination"]["replica"]
        reports = servers[0].rpc(ADMIN + "RefreshEngine", {}).json()["reports"]
        assert all(r.get("embedded", 0) == 0 for r in reports)  # nothing changed

        client = redis.Redis.from_url(env["SCHEMASEEK_REDIS_URL"], decode_responses=True)
        prefix = env["SCHEMASEEK_REDIS_PREFIX"]
        keys = sorted(client.scan_iter(match=f"{prefix}*"))
        kinds = {key[len(prefix) :].split(":", 1)[0] for key in keys}
        assert kinds <= {"lease", "token", "active"} and "active" in kinds
        for key in keys:  # ids, tokens and times only: no schema, documents or vectors
            value = client.get(key)
            assert value is not None and len(value) < 200
            if key[len(prefix) :].startswith("active"):
                assert set(json.loads(value)) == {"generation", "token", "holder", "unix_time"}
        client.close()
    finally:
        for server in servers:
            server.stop()
