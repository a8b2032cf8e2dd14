"""In-process checks of the service's pieces: cursors, tokens, buckets, config, encodings."""

from __future__ import annotations

import hashlib

import pytest
from connectrpc.errors import ConnectError

from schemaseek.errors import ConfigError
from schemaseek.service.auth import Principal, RateLimiter, TokenAuth
from schemaseek.service.backend import overall_status
from schemaseek.service.cursor import Cursor, CursorError, decode_cursor, encode_cursor
from schemaseek.service.http import pick_encoding
from schemaseek.service.settings import TokenConfig, load_service_config, redacted_config

SECRET = b"unit-test-secret"


def test_cursor_round_trip_and_tampering() -> None:
    cursor = Cursor(0.1234567890123, "music_db\x1froyalty_payment", 10, "abc")
    text = encode_cursor(SECRET, cursor)
    assert decode_cursor(SECRET, text, "abc") == cursor
    with pytest.raises(CursorError, match="different search"):
        decode_cursor(SECRET, text, "other")
    with pytest.raises(CursorError, match="not issued"):
        decode_cursor(b"another-secret!!", text, "abc")
    for bad in ("", "a.b.c", "!!!.???", text + "x"):
        with pytest.raises(CursorError):
            decode_cursor(SECRET, bad, "abc")


def test_tokens_roles_and_constant_time_lookup() -> None:
    auth = TokenAuth(
        [
            TokenConfig(name="app", role="search", sha256=hashlib.sha256(b"s3").hexdigest()),
            TokenConfig(name="ops", role="admin", sha256=hashlib.sha256(b"a1").hexdigest()),
        ]
    )
    assert auth.authenticate("Bearer s3", None) == Principal("app", "search")
    assert auth.authenticate("bearer a1", None).role == "admin"
    for header in (None, "", "Bearer", "Basic s3", "Bearer nope"):
        with pytest.raises(ConnectError):
            auth.authenticate(header, None)
    with pytest.raises(ConnectError):
        auth.authorize(Principal("app", "search"), "schemaseek.v1.AdminService")
    auth.authorize(Principal("ops", "admin"), "schemaseek.v1.AdminService")
    assert TokenAuth([]).authenticate(None, "127.0.0.1").role == "admin"


def test_token_bucket_refills() -> None:
    limiter = RateLimiter(2, 10.0)
    assert limiter.take("a", now=0.0) == 0.0 and limiter.take("a", now=0.0) == 0.0
    assert limiter.take("a", now=0.0) == pytest.approx(5.0)
    assert limiter.take("b", now=0.0) == 0.0
    assert limiter.take("a", now=6.0) == 0.0


def test_config_from_env_and_errors() -> None:
    digest = hashlib.sha256(b"t").hexdigest()
    config = load_service_config(
        env={
            "PORT": "9000",
            "RRF_K": "40",
            "RATE_LIMIT_WINDOW_MS": "1000",
            "SCHEMASEEK_TOKENS": f"app:search:{digest}",
            "MAX_SEARCH_LIMIT": "50",
        }
    )
    assert (config.port, config.search.rrf_k, config.rate_limit_window_s) == (9000, 40.0, 1.0)
    assert config.search.max_search_limit == 50 and config.tokens[0].name == "app"
    values, redacted = redacted_config(config)
    assert digest not in str(values) and "cursor_secret" in redacted
    with pytest.raises(ConfigError, match="rrf_k"):
        load_service_config(env={"RRF_K": "0"})
    with pytest.raises(ConfigError, match="tokens"):
        load_service_config(env={"SCHEMASEEK_TOKENS": "app:root:xyz"})
    with pytest.raises(ConfigError, match="without tokens"):
        load_service_config(env={}, overrides={"host": "0.0.0.0"}).check_binding()
    load_service_config(env={}, overrides={"host": "0.0.0.0", "insecure": True}).check_binding()


def test_encoding_choice_and_overall_status() -> None:
    assert pick_encoding("gzip, br") == "br"
    assert pick_encoding("gzip;q=0, zstd") == "zstd"
    assert pick_encoding("identity") is None
    assert overall_status([], []) == "unavailable"
    assert overall_status(["initializing", "failed"], [{}, {}]) == "unavailable"
    assert overall_status(["ready", "degraded"], [{}, {}]) == "degraded"
    assert overall_status(["ready"], [{"embed": "open", "embed_query": "open"}]) == "unavailable"
    assert overall_status(["ready", "ready"], [{"embed": "closed"}, {}]) == "ready"
