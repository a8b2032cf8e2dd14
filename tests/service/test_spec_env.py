"""The spec's configuration names: every one accepted and mapped, ``SCHEMASEEK_*`` winning
over a spec name for the same setting, the README's table listing each, sources declared by
the environment, per-kind polling and ``{{env}}``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemaseek.errors import ConfigError
from schemaseek.service.settings import load_service_config
from schemaseek.service.sources import plan_sources
from schemaseek.service.spec_env import VARIABLES
from schemaseek.sources.snowflake_source import SnowflakeSource

README = Path(__file__).resolve().parents[2] / "README.md"

#: The variables of the spec's configuration tables (spec 001 "Configuration Reference",
#: spec 003 "Configuration", and the client's SEARCH_URL).
SPEC_TABLES = [
    "PORT",
    "ENVIRONMENT",
    "SENTRY_DSN",
    "SHUTDOWN_TIMEOUT_MS",
    "SEARCH_EMBEDDING_MODEL",
    "SEARCH_RERANKER_MODEL",
    "SEARCH_DEVICE",
    "SEARCH_EMBEDDING_DTYPE",
    "SEARCH_RERANKER_DTYPE",
    "HF_CACHE_DIR",
    "GRAPHQL_GATEWAY_URL",
    "GRAPHQL_POLL_INTERVAL_MS",
    "GRAPHQL_POLL_JITTER_MAX_MS",
    "GRAPHQL_INTROSPECT_TIMEOUT_MS",
    "SNOWFLAKE_ACCOUNT",
    "SNOWFLAKE_USER",
    "SNOWFLAKE_ROLE",
    "SNOWFLAKE_WAREHOUSE",
    "SNOWFLAKE_ALLOWLIST",
    "SNOWFLAKE_BLOCKLIST",
    "SNOWFLAKE_ENV",
    "SNOWFLAKE_POLL_INTERVAL_MS",
    "SNOWFLAKE_POLL_JITTER_MAX_MS",
    "SNOWFLAKE_TIMEOUT_MS",
    "S3_SNAPSHOT_BUCKET",
    "S3_SNAPSHOT_PREFIX",
    "S3_REGION",
    "S3_ENDPOINT",
    "RRF_K",
    "MAX_SEARCH_LIMIT",
    "MAX_QUERY_LENGTH",
    "MAX_COLUMNS_PER_TABLE",
    "CB_STRATEGY",
    "CB_FAILURE_THRESHOLD",
    "CB_WINDOW_MS",
    "CB_COOLDOWN_MS",
    "CB_SUCCESS_THRESHOLD",
    "RATE_LIMIT_WINDOW_MS",
    "RATE_LIMIT_MAX",
    "SEARCH_URL",
]

EVERYTHING = {
    "PORT": "9090", "ENVIRONMENT": "staging", "SENTRY_DSN": "https://k@sentry.example/1",
    "SHUTDOWN_TIMEOUT_MS": "5000",
    "SEARCH_EMBEDDING_MODEL": "sentence-transformers/all-MiniLM-L6-v2",
    "SEARCH_RERANKER_MODEL": "/models/bge", "SEARCH_DEVICE": "cpu",
    "SEARCH_EMBEDDING_DTYPE": "q8", "SEARCH_RERANKER_DTYPE": "fp32", "HF_CACHE_DIR": "/cache",
    "GRAPHQL_GATEWAY_URL": "https://gateway.example/graphql", "GRAPHQL_POLL_INTERVAL_MS": "60000",
    "GRAPHQL_POLL_JITTER_MAX_MS": "6000", "GRAPHQL_INTROSPECT_TIMEOUT_MS": "4000",
    "SNOWFLAKE_ACCOUNT": "acme-xy123", "SNOWFLAKE_USER": "reader", "SNOWFLAKE_ROLE": "ANALYST",
    "SNOWFLAKE_WAREHOUSE": "WH_S", "SNOWFLAKE_ALLOWLIST": "FACTS.{{env}}.,DIMS.",
    "SNOWFLAKE_BLOCKLIST": "re:_OLD$", "SNOWFLAKE_ENV": "PROD",
    "SNOWFLAKE_POLL_INTERVAL_MS": "3600000", "SNOWFLAKE_POLL_JITTER_MAX_MS": "360000",
    "SNOWFLAKE_TIMEOUT_MS": "20000", "S3_SNAPSHOT_BUCKET": "snaps", "S3_SNAPSHOT_PREFIX": "search/",
    "S3_REGION": "eu-west-1", "S3_ENDPOINT": "http://127.0.0.1:9000", "RRF_K": "40",
    "MAX_SEARCH_LIMIT": "100", "MAX_QUERY_LENGTH": "500", "MAX_COLUMNS_PER_TABLE": "300",
    "CB_STRATEGY": "consecutive", "CB_FAILURE_THRESHOLD": "3", "CB_WINDOW_MS": "10000",
    "CB_COOLDOWN_MS": "15000", "CB_SUCCESS_THRESHOLD": "2", "RATE_LIMIT_WINDOW_MS": "1000",
    "RATE_LIMIT_MAX": "50", "SEARCH_URL": "http://search:8081",
}  # fmt: skip


def test_every_spec_variable_is_mapped_and_documented() -> None:
    names = [v.name for v in VARIABLES]
    assert set(SPEC_TABLES) <= set(names)
    assert set(EVERYTHING) <= set(names)
    table = README.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z0-9_]+)`", table, flags=re.MULTILINE))
    assert set(names) <= documented, sorted(set(names) - documented)


def test_the_spec_names_set_the_settings() -> None:
    config = load_service_config(env=EVERYTHING)
    search = config.search
    assert (config.port, config.rate_limit_max, config.rate_limit_window_s) == (9090, 50, 1.0)
    assert (search.rrf_k, search.max_search_limit, search.max_query_length) == (40, 100, 500)
    assert search.breaker_strategy == "consecutive" and search.breaker_cooldown_s == 15.0
    assert search.breaker_window_s == 10.0 and search.breaker_success_threshold == 2
    assert search.shutdown_timeout_s == 5.0 and search.device == "cpu"
    assert search.snapshot_dir == "s3://snaps/search"
    assert (config.s3_region, config.s3_endpoint_url) == ("eu-west-1", "http://127.0.0.1:9000")
    assert search.reranker == "cross-encoder"
    assert search.reranker_model_path == "/models/bge/model.onnx"
    assert search.reranker_tokenizer_path == "/models/bge/tokenizer.json"
    assert config.environment == "PROD"  # SNOWFLAKE_ENV wins over ENVIRONMENT for {{env}}
    assert config.placeholders() == {"env": "PROD"}


def test_schemaseek_names_win() -> None:
    env = {
        "RRF_K": "40", "SCHEMASEEK_RRF_K": "30", "PORT": "9090", "SCHEMASEEK_PORT": "9191",
        "S3_SNAPSHOT_BUCKET": "snaps", "SCHEMASEEK_SNAPSHOT_DIR": "/data/snaps",
        "ENVIRONMENT": "dev", "SCHEMASEEK_ENVIRONMENT": "qa",
        "S3_ENDPOINT": "http://a:9000", "SCHEMASEEK_S3_ENDPOINT_URL": "http://b:9000",
    }  # fmt: skip
    config = load_service_config(env=env)
    assert (config.search.rrf_k, config.port) == (30, 9191)
    assert config.search.snapshot_dir == "/data/snaps"
    assert config.environment == "qa" and config.s3_endpoint_url == "http://b:9000"


def test_an_embedding_model_that_is_not_bundled_is_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="SEARCH_EMBEDDING_MODEL='mixedbread-ai/mxbai"):
        load_service_config(env={"SEARCH_EMBEDDING_MODEL": "mixedbread-ai/mxbai-embed-large-v1"})
    config = load_service_config(
        env={
            "SEARCH_EMBEDDING_MODEL": "mxbai-embed-large",
            "SCHEMASEEK_EMBEDDING_PROVIDER": "openai",
        }
    )
    assert config.search.embedding_model == "mxbai-embed-large"
    with pytest.raises(ConfigError, match="RATE_LIMIT_WINDOW_MS"):
        load_service_config(env={"RATE_LIMIT_WINDOW_MS": "soon"})


def test_sources_declared_by_the_environment() -> None:
    plan = plan_sources(env=EVERYTHING)
    assert plan.label == "environment"
    assert [s.name for s in plan.sources] == ["graphql", "snowflake"]
    polls = plan.source_polls(0.1)
    assert polls["graphql"][0] == 60.0 and polls["graphql"][1] == pytest.approx(0.1)
    assert polls["snowflake"][0] == 3600.0 and polls["snowflake"][1] == pytest.approx(0.1)
    snowflake = plan.sources[1].fetch
    assert isinstance(snowflake, SnowflakeSource)
    assert snowflake.allow == ("FACTS.PROD.", "DIMS.") and snowflake.block == ("re:_OLD$",)
    assert snowflake.timeout_s == 20.0 and snowflake.max_columns == 300
    assert snowflake.url.startswith("snowflake://reader@acme-xy123/FACTS")
    assert "warehouse=WH_S" in snowflake.url and "role=ANALYST" in snowflake.url
    demo = plan_sources(demo=True, env={})
    assert [s.name for s in demo.sources] == ["music_api", "music_db"]
    assert demo.source_polls(0.1) == {}


def test_the_client_reads_search_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from schemaseek.client import SchemaSeekClient

    monkeypatch.delenv("SCHEMASEEK_URL", raising=False)
    monkeypatch.setenv("SEARCH_URL", "http://search.internal:8081/")
    client = SchemaSeekClient()
    assert client.url == "http://search.internal:8081"
    client.close()


def test_max_columns_per_table_caps_sql_sources(tmp_path: Path) -> None:
    import sqlite3

    database = tmp_path / "wide.db"
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE wide (a INTEGER, b TEXT, c TEXT, d TEXT, e TEXT)")
    config = tmp_path / "schemaseek.toml"
    config.write_text(
        f'[[sources]]\nname = "db"\ntype = "sql"\nurl = "sqlite:///{database}"\n', encoding="utf-8"
    )
    plan = plan_sources(config=config, env={"MAX_COLUMNS_PER_TABLE": "2"})
    schema = plan.sources[0].fetch()
    assert [c["name"] for c in schema.raw["tables"][0]["columns"]] == ["a", "b"]
    whole = plan_sources(config=config, env={}).sources[0].fetch()
    assert len(whole.raw["tables"][0]["columns"]) == 5
