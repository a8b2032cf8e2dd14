"""The spec's configuration names (spec 001 "Configuration Reference", spec 003
"Configuration"), each accepted and mapped onto schemaseek's settings.

:data:`VARIABLES` lists every one with what it sets (the README's table is checked against
it). One-to-one names are in :data:`schemaseek.service.settings.PLAIN_ENV`; this module adds
the rest: names that set several settings (``S3_SNAPSHOT_BUCKET`` + ``S3_SNAPSHOT_PREFIX``,
``SEARCH_RERANKER_MODEL``), sources declared by the environment (``GRAPHQL_GATEWAY_URL``,
``SNOWFLAKE_*``) and per-kind polling (``GRAPHQL_POLL_*``, ``SNOWFLAKE_POLL_*``). A
``SCHEMASEEK_*`` name always wins over the spec's name for the same setting.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from schemaseek.errors import ConfigError
from schemaseek.project import SourceConfig

__all__ = [
    "VARIABLES",
    "SpecVariable",
    "apply_composites",
    "environment_of",
    "environment_sources",
    "with_poll_defaults",
]

logger = logging.getLogger(__name__)

_MINILM = ("all-minilm-l6-v2",)


@dataclass(frozen=True, slots=True)
class SpecVariable:
    """One of the spec's variables: what it sets here, its default, and a note."""

    name: str
    sets: str
    default: str
    note: str = ""


VARIABLES: tuple[SpecVariable, ...] = (
    SpecVariable("PORT", "`port`", "8081"),
    SpecVariable("ENVIRONMENT", "`environment`", "—", "`{{env}}` when `SNOWFLAKE_ENV` is unset"),
    SpecVariable("SENTRY_DSN", "—", "—", "accepted; errors go to the JSON logs and traces"),
    SpecVariable("SHUTDOWN_TIMEOUT_MS", "`search.shutdown_timeout_s`", "10000"),
    SpecVariable(
        "SEARCH_EMBEDDING_MODEL",
        "`search.embedding_model`",
        "all-MiniLM-L6-v2",
        "the bundled ONNX model; another name needs `SCHEMASEEK_EMBEDDING_PROVIDER=openai`",
    ),
    SpecVariable(
        "SEARCH_RERANKER_MODEL",
        "`search.reranker` = cross-encoder, its model and tokenizer",
        "late interaction",
        "a local ONNX model file or folder (`model.onnx`, `tokenizer.json`)",
    ),
    SpecVariable("SEARCH_DEVICE", "`search.device`", "cpu"),
    SpecVariable("SEARCH_EMBEDDING_DTYPE", "—", "int8", "accepted; the bundled model is int8"),
    SpecVariable("SEARCH_RERANKER_DTYPE", "—", "—", "accepted; the model file decides"),
    SpecVariable("HF_CACHE_DIR", "—", "—", "accepted; models come from packages, never a hub"),
    SpecVariable("GRAPHQL_GATEWAY_URL", "a source `graphql` (introspection)", "none"),
    SpecVariable("GRAPHQL_POLL_INTERVAL_MS", "`poll_interval_s` of GraphQL sources", "service's"),
    SpecVariable("GRAPHQL_POLL_JITTER_MAX_MS", "`poll_jitter_max_s` of GraphQL sources", "10%"),
    SpecVariable("GRAPHQL_INTROSPECT_TIMEOUT_MS", "`timeout_s` of GraphQL sources", "10000"),
    SpecVariable("SNOWFLAKE_ACCOUNT", "a source `snowflake` (incremental polling)", "none"),
    SpecVariable("SNOWFLAKE_USER", "its URL's user", "—"),
    SpecVariable("SNOWFLAKE_PASSWORD", "its URL's password", "—", "not in the spec's table"),
    SpecVariable("SNOWFLAKE_ROLE", "its URL's `role`", "—"),
    SpecVariable("SNOWFLAKE_WAREHOUSE", "its URL's `warehouse`", "—"),
    SpecVariable("SNOWFLAKE_DATABASE", "its URL's database", "first allowlist entry's"),
    SpecVariable("SNOWFLAKE_ALLOWLIST", "its `allow` (comma-separated)", "none: all"),
    SpecVariable("SNOWFLAKE_BLOCKLIST", "its `block`, on top of the default", "TEMP, TMP ..."),
    SpecVariable("SNOWFLAKE_ENV", "`environment`", "—", "`{{env}}` in lists and glossary"),
    SpecVariable("SNOWFLAKE_POLL_INTERVAL_MS", "`poll_interval_s` of Snowflake sources", "—"),
    SpecVariable("SNOWFLAKE_POLL_JITTER_MAX_MS", "`poll_jitter_max_s` of Snowflake sources", "—"),
    SpecVariable("SNOWFLAKE_TIMEOUT_MS", "`timeout_s` of Snowflake sources", "none"),
    SpecVariable("S3_SNAPSHOT_BUCKET", "`search.snapshot_dir` = `s3://BUCKET/PREFIX`", "local"),
    SpecVariable("S3_SNAPSHOT_PREFIX", "(with the bucket)", '""'),
    SpecVariable("S3_REGION", "`s3_region`", "boto3's"),
    SpecVariable("S3_ENDPOINT", "`s3_endpoint_url`", "AWS"),
    SpecVariable("RRF_K", "`search.rrf_k`", "25"),
    SpecVariable("MAX_SEARCH_LIMIT", "`search.max_search_limit`", "200"),
    SpecVariable("MAX_QUERY_LENGTH", "`search.max_query_length`", "2048"),
    SpecVariable("MAX_COLUMNS_PER_TABLE", "`max_columns` of SQL sources", "none"),
    SpecVariable("CB_STRATEGY", "`search.breaker_strategy`", "rolling"),
    SpecVariable("CB_FAILURE_THRESHOLD", "`search.breaker_failure_threshold`", "5"),
    SpecVariable("CB_WINDOW_MS", "`search.breaker_window_s`", "60000"),
    SpecVariable("CB_COOLDOWN_MS", "`search.breaker_cooldown_s`", "30000"),
    SpecVariable("CB_SUCCESS_THRESHOLD", "`search.breaker_success_threshold`", "1"),
    SpecVariable("RATE_LIMIT_WINDOW_MS", "`rate_limit_window_s`", "60000"),
    SpecVariable("RATE_LIMIT_MAX", "`rate_limit_max`", "600"),
    SpecVariable("SEARCH_URL", "the Python client's URL", "http://127.0.0.1:8081"),
)
UNUSED = ("SENTRY_DSN", "SEARCH_EMBEDDING_DTYPE", "SEARCH_RERANKER_DTYPE", "HF_CACHE_DIR")


def _ms(env: Mapping[str, str], name: str) -> float | None:
    if not env.get(name):
        return None
    try:
        return float(env[name]) / 1000.0
    except ValueError:
        raise ConfigError(f"{name}={env[name]!r} is not a number of milliseconds") from None


def apply_composites(
    env: Mapping[str, str], service: dict[str, Any], search: dict[str, Any]
) -> None:
    """Set what the spec's many-to-one names mean (before ``SCHEMASEEK_*`` are applied)."""
    for name in UNUSED:
        if env.get(name):
            logger.info("%s is accepted and has no effect here (see the README)", name)
    bucket = env.get("S3_SNAPSHOT_BUCKET")
    if bucket:
        prefix = env.get("S3_SNAPSHOT_PREFIX", "").strip("/")
        search["snapshot_dir"] = f"s3://{bucket}/{prefix}".rstrip("/")
    model = env.get("SEARCH_EMBEDDING_MODEL")
    if model and model.rsplit("/", 1)[-1].lower() in _MINILM:
        search.pop("embedding_model", None)  # the bundled model
    elif (
        model
        and (env.get("SCHEMASEEK_EMBEDDING_PROVIDER") or search.get("embedding_provider", "onnx"))
        != "openai"
    ):
        if not Path(model).expanduser().is_dir():
            raise ConfigError(
                f"SEARCH_EMBEDDING_MODEL={model!r}: the bundled local model is all-MiniLM-L6-v2; "
                "name a directory holding model.onnx and tokenizer.json (e.g. the one `make "
                "model-mpnet` builds), or serve another model behind an OpenAI-compatible "
                "endpoint and set SCHEMASEEK_EMBEDDING_PROVIDER=openai and "
                "SCHEMASEEK_EMBEDDING_BASE_URL"
            )
        search["onnx_model"] = model  # checked when the provider is built
    reranker = env.get("SEARCH_RERANKER_MODEL")
    if reranker:
        path = Path(reranker)
        folder = path if path.suffix != ".onnx" else path.parent
        search["reranker"] = "cross-encoder"
        search["reranker_model_path"] = str(path if path.suffix == ".onnx" else path / "model.onnx")
        search["reranker_tokenizer_path"] = str(folder / "tokenizer.json")


def environment_sources(env: Mapping[str, str]) -> list[SourceConfig]:
    """The sources the spec's variables declare: ``graphql`` from ``GRAPHQL_GATEWAY_URL``,
    ``snowflake`` from ``SNOWFLAKE_ACCOUNT`` (omit them to index neither)."""
    sources = []
    gateway = env.get("GRAPHQL_GATEWAY_URL")
    if gateway:
        sources.append(SourceConfig(name="graphql", type="graphql", url=gateway))
    account = env.get("SNOWFLAKE_ACCOUNT")
    if account:
        allow = tuple(a.strip() for a in env.get("SNOWFLAKE_ALLOWLIST", "").split(",") if a.strip())
        block = tuple(b.strip() for b in env.get("SNOWFLAKE_BLOCKLIST", "").split(",") if b.strip())
        database = env.get("SNOWFLAKE_DATABASE") or (allow[0].split(".")[0] if allow else "")
        user = quote(env.get("SNOWFLAKE_USER", ""), safe="")
        password = env.get("SNOWFLAKE_PASSWORD")
        login = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
        query = {k: env[f"SNOWFLAKE_{k.upper()}"] for k in ("warehouse", "role")
                 if env.get(f"SNOWFLAKE_{k.upper()}")}  # fmt: skip
        url = f"snowflake://{login}{quote(account, safe='')}/{quote(database, safe='')}"
        if query:
            url += "?" + urlencode(query)
        sources.append(
            SourceConfig(
                name="snowflake", type="snowflake", url=url, allow=allow, block=block,
                environment=env.get("SNOWFLAKE_ENV") or None,
            )
        )  # fmt: skip
    return sources


def with_poll_defaults(src: SourceConfig, env: Mapping[str, str]) -> SourceConfig:
    """``src`` with the spec's per-kind polling, timeout and column cap filled in where the
    source does not set its own."""
    prefix = "GRAPHQL" if src.kind == "graphql" else "SNOWFLAKE" if src.kind == "snowflake" else ""
    update: dict[str, Any] = {}
    if prefix:
        timeout = "INTROSPECT_TIMEOUT_MS" if prefix == "GRAPHQL" else "TIMEOUT_MS"
        for field, name in (
            ("poll_interval_s", f"{prefix}_POLL_INTERVAL_MS"),
            ("poll_jitter_max_s", f"{prefix}_POLL_JITTER_MAX_MS"),
            ("timeout_s", f"{prefix}_{timeout}"),
        ):
            value = _ms(env, name)
            if value is not None and getattr(src, field) is None:
                update[field] = value
    if src.kind != "graphql" and env.get("MAX_COLUMNS_PER_TABLE") and src.max_columns is None:
        try:
            update["max_columns"] = int(env["MAX_COLUMNS_PER_TABLE"])
        except ValueError:
            raise ConfigError("MAX_COLUMNS_PER_TABLE must be a whole number") from None
    return src.model_copy(update=update) if update else src


def environment_of(env: Mapping[str, str], service_table: Mapping[str, Any]) -> str | None:
    """What ``{{env}}`` stands for: ``SCHEMASEEK_ENVIRONMENT``, ``SNOWFLAKE_ENV``,
    ``ENVIRONMENT``, then the file's ``[service] environment``."""
    for name in ("SCHEMASEEK_ENVIRONMENT", "SNOWFLAKE_ENV", "ENVIRONMENT"):
        if env.get(name):
            return env[name]
    value = service_table.get("environment")
    return str(value) if value else None
