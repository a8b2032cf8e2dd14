"""The Redis coordinator on its own: leases and tokens, refused stale announcements, a
malformed key, a failing listener, and the extras named when missing."""

from __future__ import annotations

import sys
import threading

import pytest

from schemaseek.cluster import RedisCoordinator
from schemaseek.errors import CoordinationError, MissingExtraError

pytestmark = pytest.mark.services


def test_leases_tokens_and_announcements(redis_url: str, redis_prefix: str) -> None:
    a = RedisCoordinator(redis_url, prefix=redis_prefix, replica_id="a", lease_ttl_s=30)
    b = RedisCoordinator(redis_url, prefix=redis_prefix, replica_id="b", lease_ttl_s=30)
    try:
        heard: list[dict[str, object]] = []
        arrived = threading.Event()

        def broken(message: dict[str, object]) -> None:
            raise RuntimeError("a listener with a bug")

        def listener(message: dict[str, object]) -> None:
            heard.append(message)
            arrived.set()

        b.listen("s", broken)
        unsubscribe = b.listen("s", listener)
        lease = a.try_acquire("s", min_token=41)
        assert lease is not None and lease.token == 42  # above the store's highest
        assert b.try_acquire("s") is None and b.holder("s") == "a|42"
        assert a.renew(lease)
        assert b.subscribed.wait(10) and b.active("s", "fp") is None
        assert a.announce("s", "fp", "g1", lease.token)
        assert arrived.wait(10)  # the broken listener did not stop this one
        assert heard[0]["generation"] == "g1" and heard[0]["holder"] == "a"
        a.release(lease)
        newer = b.try_acquire("s")
        assert newer is not None and newer.token == 43
        assert not a.announce("s", "fp", "stale", lease.token)  # an older token is refused
        active = b.active("s", "fp")
        assert active is not None and (active.generation, active.token) == ("g1", 42)
        assert not a.renew(lease)  # the lease is b's now
        unsubscribe()
        import redis

        raw = redis.Redis.from_url(redis_url)
        raw.set(f"{redis_prefix}active:s:fp", b"{not json")
        raw.close()
        with pytest.raises(CoordinationError, match="malformed"):
            b.active("s", "fp")
    finally:
        a.close()
        b.close()


def test_missing_extras_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(MissingExtraError, match=r"schemaseek\[redis\]"):
        RedisCoordinator("redis://127.0.0.1:6379/0")
    from schemaseek.service.telemetry import Telemetry

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(MissingExtraError, match=r"schemaseek\[otel\]"):
        Telemetry.from_env({"OTEL_TRACES_EXPORTER": "console"})
