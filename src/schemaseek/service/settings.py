"""Service configuration: defaults, an optional ``[service]`` table in ``schemaseek.toml``, and
environment variables, validated once at start-up (:func:`load_service_config`).

Environment names: ``SCHEMASEEK_<FIELD>`` (``SCHEMASEEK_PORT``), and the spec's plain names
(``PORT``, ``RRF_K``, ``MAX_SEARCH_LIMIT``, ``MAX_QUERY_LENGTH``, ``RATE_LIMIT_MAX``,
``RATE_LIMIT_WINDOW_MS``, ``SHUTDOWN_TIMEOUT_MS``, ``CB_*``, ``SEARCH_DEVICE``, ``S3_*`` ...: every
one in :data:`schemaseek.service.spec_env.VARIABLES`). Precedence, low to high: defaults, the
file, plain names, ``SCHEMASEEK_*`` names. Tokens are stored as SHA-256
hex digests only (``SCHEMASEEK_TOKENS="app:search:<sha256>,ops:admin:<sha256>"``).
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from schemaseek.config import SearchSettings
from schemaseek.errors import ConfigError
from schemaseek.service import spec_env
from schemaseek.sources.redact import MASK, redact_setting

__all__ = ["ServiceConfig", "TokenConfig", "load_service_config", "redacted_config"]

Role = Literal["search", "admin"]
_HEX64 = re.compile(r"^[0-9a-f]{64}$")

#: plain (spec) environment name → (target, field, scale). target "service" or "search".
PLAIN_ENV: dict[str, tuple[str, str, float]] = {
    "PORT": ("service", "port", 1),
    "RATE_LIMIT_MAX": ("service", "rate_limit_max", 1),
    "RATE_LIMIT_WINDOW_MS": ("service", "rate_limit_window_s", 0.001),
    "SHUTDOWN_TIMEOUT_MS": ("search", "shutdown_timeout_s", 0.001),
    "RRF_K": ("search", "rrf_k", 1),
    "MAX_SEARCH_LIMIT": ("search", "max_search_limit", 1),
    "MAX_QUERY_LENGTH": ("search", "max_query_length", 1),
    "CB_STRATEGY": ("search", "breaker_strategy", 0),
    "CB_FAILURE_THRESHOLD": ("search", "breaker_failure_threshold", 1),
    "CB_WINDOW_MS": ("search", "breaker_window_s", 0.001),
    "CB_COOLDOWN_MS": ("search", "breaker_cooldown_s", 0.001),
    "CB_SUCCESS_THRESHOLD": ("search", "breaker_success_threshold", 1),
    "SEARCH_DEVICE": ("search", "device", 0),
    "SEARCH_EMBEDDING_MODEL": ("search", "embedding_model", 0),
    "S3_REGION": ("service", "s3_region", 0),
    "S3_ENDPOINT": ("service", "s3_endpoint_url", 0),
    "ENVIRONMENT": ("service", "environment", 0),
    "SNOWFLAKE_ENV": ("service", "environment", 0),  # wins over ENVIRONMENT for {{env}}
}


class TokenConfig(BaseModel):
    """One bearer token: a name (for logs and rate limits), a role and its SHA-256."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64)
    role: Role
    sha256: str

    @field_validator("sha256")
    @classmethod
    def _hex_digest(cls, value: str) -> str:
        value = value.strip().lower()
        if not _HEX64.match(value):
            raise ValueError("sha256 must be 64 hex digits (printf %s TOKEN | sha256sum)")
        return value


class ServiceConfig(BaseModel):
    """What ``schemaseek serve`` runs with (search settings live in ``search``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8081, ge=0, le=65535)
    insecure: bool = False
    tokens: tuple[TokenConfig, ...] = ()
    rate_limit_max: int = Field(default=600, ge=1, le=1_000_000)
    rate_limit_window_s: float = Field(default=60.0, gt=0, le=86_400)
    data_dir: str = ".schemaseek"
    feedback_path: str | None = None
    glossary_path: str | None = None
    cursor_secret: str = Field(default_factory=lambda: secrets.token_hex(32), min_length=16)
    compression_min_bytes: int = Field(default=1024, ge=0)
    # limits checked before a request is parsed or worked on (service.limits)
    max_request_bytes: int = Field(default=1 << 20, ge=1024)
    max_json_depth: int = Field(default=32, ge=4, le=1000)
    max_filter_patterns: int = Field(default=256, ge=1, le=100_000)
    max_pattern_length: int = Field(default=512, ge=1, le=100_000)
    max_list_items: int = Field(default=64, ge=1, le=100_000)
    max_ids: int = Field(default=200, ge=1, le=100_000)
    max_cursor_bytes: int = Field(default=2048, ge=64, le=1 << 20)
    # the longest a search may run (a client's deadline is capped by it); admin work that
    # re-embeds (refresh, glossary update, rollback) waits up to admin_timeout_s
    max_deadline_ms: int = Field(default=10_000, ge=10, le=3_600_000)
    admin_timeout_s: float = Field(default=300.0, gt=0, le=86_400)
    search_threads: int = Field(default=4, ge=1, le=64)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "console"] = "json"
    mcp: bool = True
    workbench: bool = True
    poll: bool = True
    # scale-out (spec 004 "Redis"): replicas that share one snapshot store coordinate there
    redis_url: str | None = None
    redis_prefix: str = "schemaseek:"
    replica_id: str | None = None
    lease_ttl_s: float = Field(default=30.0, gt=0, le=3600)
    startup_wait_s: float = Field(default=120.0, ge=0, le=86_400)
    s3_endpoint_url: str | None = None
    s3_region: str | None = None
    # ``{{env}}`` in glossaries and source allow/block lists (SNOWFLAKE_ENV, ENVIRONMENT)
    environment: str | None = None
    search: SearchSettings = Field(default_factory=SearchSettings)

    @field_validator("tokens", mode="before")
    @classmethod
    def _parse_tokens(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_tokens(value)
        return value

    @property
    def loopback(self) -> bool:
        """Whether ``host`` is a loopback address (``localhost`` or an IP in 127.0.0.0/8 or
        ``::1``; a name that merely starts with ``127.`` is not)."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host.strip("[]")).is_loopback
        except ValueError:
            return False

    def placeholders(self) -> dict[str, str]:
        """The values of ``{{name}}`` placeholders in glossaries (``{{env}}``)."""
        return {"env": self.environment} if self.environment else {}

    def path(self, value: str | None, default: str) -> Path:
        """``value`` or ``data_dir/default`` as a path."""
        return Path(value) if value else Path(self.data_dir) / default

    def check_binding(self) -> None:
        """Refuse a non-loopback address without tokens unless ``insecure`` is set."""
        if not self.tokens and not self.loopback and not self.insecure:
            raise ConfigError(
                f"refusing to listen on {self.host} without tokens: configure "
                "SCHEMASEEK_TOKENS (name:role:sha256, ...) or pass --insecure"
            )


def parse_tokens(text: str) -> list[dict[str, str]]:
    """``"app:search:<hex>,ops:admin:<hex>"`` → token dicts (validated by the model)."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        pieces = item.split(":")
        if len(pieces) != 3:
            raise ValueError("each token is name:role:sha256")
        out.append({"name": pieces[0], "role": pieces[1], "sha256": pieces[2]})
    return out


def _env_values(env: Mapping[str, str], fields: Mapping[str, Any], prefix: str) -> dict[str, str]:
    out = {}
    for name in fields:
        key = f"{prefix}{name.upper()}"
        if key in env:
            out[name] = env[key]
    return out


def load_service_config(
    file_table: Mapping[str, Any] | None = None,
    search_table: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> ServiceConfig:
    """Merge defaults, the file's ``[service]``/``[search]`` tables, the environment and
    command-line ``overrides``; :class:`ConfigError` lists every problem with its variable."""
    env = os.environ if env is None else env
    service: dict[str, Any] = dict(file_table or {})
    search: dict[str, Any] = dict(search_table or {})
    for name, (target, field, scale) in PLAIN_ENV.items():
        if name in env:
            value: Any = env[name]
            if scale not in (0, 1):
                try:
                    value = float(value) * scale
                except ValueError:
                    raise ConfigError(f"{name}={env[name]!r} is not a number") from None
            (service if target == "service" else search)[field] = value
    spec_env.apply_composites(env, service, search)
    service_fields = {k: v for k, v in ServiceConfig.model_fields.items() if k != "search"}
    service.update(_env_values(env, service_fields, "SCHEMASEEK_"))
    search.update(_env_values(env, SearchSettings.model_fields, "SCHEMASEEK_"))
    service.update({k: v for k, v in (overrides or {}).items() if v is not None})
    problems: list[str] = []
    try:
        search_settings = SearchSettings.model_validate(search)
    except ValidationError as exc:
        problems += [_problem("search", e) for e in exc.errors()]
        search_settings = SearchSettings()
    try:
        config = ServiceConfig.model_validate({**service, "search": search_settings})
    except ValidationError as exc:
        problems += [_problem("service", e) for e in exc.errors()]
        config = None
    if problems or config is None:
        raise ConfigError("invalid service configuration: " + "; ".join(problems[:12]))
    return config


def _problem(table: str, error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"]) or table
    env_name = f"SCHEMASEEK_{str(error['loc'][0]).upper()}" if error["loc"] else ""
    hint = f" (env {env_name})" if env_name else ""
    return f"{table}.{where}{hint}: {error['msg']}"


def redacted_config(config: ServiceConfig) -> tuple[dict[str, str], list[str]]:
    """Every setting as text, each through :func:`~schemaseek.sources.redact.redact_setting`
    (tokens show their names and roles only); and the names of the settings that were
    masked or had a secret taken out."""
    values: dict[str, str] = {}
    for name, value in config.model_dump(exclude={"search"}).items():
        if name == "tokens":
            values[name] = ", ".join(f"{t['name']}:{t['role']}:{MASK}" for t in value)
        else:
            values[name] = redact_setting(name, value)
    for name, value in config.search.model_dump().items():
        values[f"search.{name}"] = redact_setting(f"search.{name}", value)
    plain = {**config.model_dump(exclude={"search"}), **{
        f"search.{k}": v for k, v in config.search.model_dump().items()
    }}  # fmt: skip
    redacted = sorted(
        k for k, v in values.items() if v != ("" if plain[k] is None else str(plain[k]))
    )
    return values, redacted
