"""The one embedding-provider factory: backends by name, every embedding setting honoured."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from schemaseek.config import SearchSettings
from schemaseek.embedding.breaker import BreakerConfig, Strategy
from schemaseek.embedding.cache import CachedQueryEmbedder
from schemaseek.embedding.factory import (
    breaker_config,
    create_provider,
    provider_from_settings,
    provider_names,
)
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.embedding.openai_compat import OpenAICompatibleProvider
from schemaseek.errors import ConfigError

#: Every SearchSettings field the factory reads; a new embedding setting must be added here
#: (and honoured by provider_from_settings), or test_every_embedding_setting_is_read fails.
READ = {
    "embedding_provider",
    "embedding_model",
    "embedding_base_url",
    "embedding_api_key_env",
    "embedding_dimensions",
    "embedding_batch_size",
    "embedding_max_in_flight",
    "query_embedding_timeout_s",
    "query_prefix",
    "device",
    "onnx_model",
    "onnx_model_share",
}


class CountingServer:
    """An HTTP server that only counts requests (and answers 503): construction must send none."""

    def __init__(self) -> None:
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                outer.requests += 1
                self.send_response(503)
                self.end_headers()

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture()
def counting_server() -> Iterator[CountingServer]:
    server = CountingServer()
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def remote_settings(base_url: str) -> SearchSettings:
    return SearchSettings(
        embedding_provider="openai",
        embedding_model="nomic-embed-text",
        embedding_base_url=base_url,
        embedding_api_key_env="SCHEMASEEK_TEST_FACTORY_KEY",
        embedding_dimensions=768,
        embedding_batch_size=16,
        query_embedding_timeout_s=0.75,
        query_prefix="search_query: ",
    )


def test_default_is_onnx_and_lazy() -> None:
    provider = create_provider()
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert not provider.loaded
    assert provider.dimensions == 384


def test_options_are_passed() -> None:
    provider = create_provider("ONNX", batch_size=8, query_prefix="q: ", device="auto")
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert (provider.batch_size, provider.query_prefix, provider.device) == (8, "q: ", "auto")


def test_unknown_name_lists_valid_ones() -> None:
    assert provider_names() == ["onnx", "openai"]
    with pytest.raises(ConfigError, match="valid names: onnx, openai"):
        create_provider("word2vec")


def test_options_of_the_other_backend_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"invalid options.*'onnx'.*base_url"):
        create_provider("onnx", base_url="http://localhost:11434/v1")
    with pytest.raises(ConfigError, match=r"invalid options.*'openai'.*device"):
        create_provider("openai", device="cuda")
    with pytest.raises(ConfigError, match="base_url must be an http"):
        create_provider("openai", base_url="ftp://nowhere")


def test_openai_defaults_are_the_providers() -> None:
    provider = create_provider("openai")
    assert isinstance(provider, OpenAICompatibleProvider)
    defaults = SearchSettings.model_fields
    assert provider.model == defaults["embedding_model"].default
    assert provider.dimensions == defaults["embedding_dimensions"].default
    assert provider.base_url == defaults["embedding_base_url"].default
    assert provider.api_key_env == defaults["embedding_api_key_env"].default
    assert provider.query_timeout_s == defaults["query_embedding_timeout_s"].default
    provider.close()


def test_onnx_settings_are_honoured() -> None:
    settings = SearchSettings(device="auto", embedding_batch_size=12, query_prefix="query: ")
    provider = provider_from_settings(settings)
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert (provider.device, provider.batch_size, provider.query_prefix) == (
        "auto",
        12,
        "query: ",
    )
    assert provider.dimensions == 384  # embedding_dimensions is the remote model's
    assert not provider.loaded


def test_openai_settings_are_honoured_without_a_request(counting_server: CountingServer) -> None:
    provider = provider_from_settings(remote_settings(counting_server.base_url))
    assert isinstance(provider, OpenAICompatibleProvider)
    assert provider.model == provider.model_id == "nomic-embed-text"
    assert provider.base_url == counting_server.base_url
    assert provider.api_key_env == "SCHEMASEEK_TEST_FACTORY_KEY"
    assert provider.dimensions == 768
    assert provider.batch_size == 16
    assert provider.query_timeout_s == 0.75
    assert provider.query_prefix == "search_query: "
    provider.close()
    assert counting_server.requests == 0


def test_every_embedding_setting_is_read() -> None:
    embedding = {
        name
        for name in SearchSettings.model_fields
        if name.startswith("embedding_") or name.startswith("query_embedding")
    }
    assert embedding <= READ, f"settings the factory does not read: {sorted(embedding - READ)}"


def test_schema_index_uses_the_configured_remote_provider(
    counting_server: CountingServer,
) -> None:
    """Regression: SchemaIndex(settings=...embedding_provider="openai") loaded ONNX anyway."""
    from schemaseek import SchemaIndex

    index = SchemaIndex(settings=remote_settings(counting_server.base_url))
    provider = index.provider
    assert isinstance(provider, OpenAICompatibleProvider)
    assert (provider.model, provider.dimensions) == ("nomic-embed-text", 768)
    assert provider.base_url == counting_server.base_url
    assert counting_server.requests == 0
    provider.close()


def test_breaker_config_from_settings() -> None:
    settings = SearchSettings(
        breaker_strategy="consecutive",
        breaker_failure_threshold=3,
        breaker_window_s=12.0,
        breaker_cooldown_s=4.5,
        breaker_success_threshold=2,
    )
    assert breaker_config(settings) == BreakerConfig(
        strategy=Strategy.CONSECUTIVE,
        failure_threshold=3,
        window_s=12.0,
        cooldown_s=4.5,
        success_threshold=2,
    )


def test_factory_does_not_import_the_index() -> None:
    code = (
        "import sys, schemaseek.embedding.factory as f; "
        "f.provider_from_settings(f.SearchSettings()); "
        "bad = sorted(m for m in sys.modules if m.startswith(('schemaseek.index', "
        "'schemaseek.engine', 'schemaseek.cli', 'schemaseek.service'))); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_real_model_behind_the_cache() -> None:
    cached = CachedQueryEmbedder(create_provider())
    first = cached.embed_query("total sales per region")
    second = cached.embed_query("total sales per region")
    assert second is first
    assert first.shape == (384,)
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-5
    assert cached.stats.provider_calls == 1
