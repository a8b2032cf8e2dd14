"""The container image and the compose file of README "Running several replicas": no
container runtime runs here, so the model is checked instead — the YAML parses, two replicas
share one Redis, one bucket on an S3-compatible server and one cursor secret, and every
environment name they set is one the settings model accepts, with the values it expects."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from schemaseek.config import SearchSettings
from schemaseek.service.settings import PLAIN_ENV, ServiceConfig, load_service_config
from schemaseek.service.spec_env import VARIABLES

ROOT = Path(__file__).resolve().parents[1]
_REQUIRED = re.compile(r"^\$\{(\w+):\?[^}]*\}$")


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    return loaded


def accepted(name: str) -> bool:
    """Whether the settings model (or boto3, for AWS_*) reads ``name``."""
    fields = set(ServiceConfig.model_fields) | set(SearchSettings.model_fields)
    if name.startswith("SCHEMASEEK_"):
        return name.removeprefix("SCHEMASEEK_").lower() in fields
    spec = {v.name for v in VARIABLES} | set(PLAIN_ENV)
    return name in spec or name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")


def resolved(env: dict[str, str]) -> dict[str, str]:
    """The environment with ``${VAR:?message}`` (set by the operator) given sample values."""
    samples = {
        "SCHEMASEEK_TOKENS": "ops:admin:" + "ab" * 32,
        "SCHEMASEEK_CURSOR_SECRET": "0123456789abcdef0123456789abcdef",
    }
    out = {}
    for name, value in env.items():
        required = _REQUIRED.match(str(value))
        out[name] = samples[required.group(1)] if required else str(value)
    return out


def test_two_replicas_share_redis_a_bucket_and_a_cursor_secret() -> None:
    services = compose()["services"]
    replicas = {name: s for name, s in services.items() if "build" in s}
    assert sorted(replicas) == ["search-1", "search-2"]
    assert services["redis"]["image"].startswith("redis:")
    assert "minio" in services["s3"]["image"]  # an S3-compatible store of its own
    configs = []
    for name, replica in replicas.items():
        env = replica["environment"]
        unknown = [key for key in env if not accepted(key)]
        assert unknown == [], f"{name} sets names the settings model does not read"
        config = load_service_config(env=resolved(env))
        configs.append(config)
        assert replica["command"][0] == "serve"
        assert {"redis", "bucket"} <= set(replica["depends_on"])
        assert config.host == "0.0.0.0" and config.port == 8081
        assert config.tokens, "a replica listening on 0.0.0.0 needs tokens"
    first, second = configs
    assert first.redis_url == second.redis_url == "redis://redis:6379/0"
    assert first.search.snapshot_dir == second.search.snapshot_dir == "s3://schemaseek/snapshots"
    assert first.s3_endpoint_url == second.s3_endpoint_url == "http://s3:9000"
    assert first.cursor_secret == second.cursor_secret
    assert first.replica_id != second.replica_id
    ports = [replica["ports"][0].split(":")[0] for replica in replicas.values()]
    assert len(set(ports)) == 2


def test_the_image_installs_extras_that_exist_and_serves_on_the_port() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    extras = re.search(r'pip install [^\n]*"\.\[([a-z0-9,]+)\]"', dockerfile)
    assert extras is not None
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    wanted = set(extras.group(1).split(","))
    assert {"redis", "s3", "service"} <= wanted <= set(declared)
    assert "EXPOSE 8081" in dockerfile and 'ENTRYPOINT ["schemaseek"]' in dockerfile
    assert re.search(r"^USER \w+", dockerfile, flags=re.MULTILINE)  # not root
