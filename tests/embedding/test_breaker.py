"""Circuit breakers: every strategy, every transition, and the provider wrapper."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from schemaseek.embedding.breaker import (
    BreakerConfig,
    BreakerProvider,
    BreakerState,
    CircuitBreaker,
    CircuitOpenError,
    Strategy,
)
from schemaseek.errors import ConfigError, EmbeddingError
from tests.engine.fakes import FakeClock, HashProvider


def state(breaker: CircuitBreaker) -> BreakerState:
    """The state now (a call, so that mypy does not carry a narrowed state across actions)."""
    return breaker.state


def boom() -> None:
    raise RuntimeError("down")


def fail(breaker: CircuitBreaker, times: int = 1) -> None:
    for _ in range(times):
        with pytest.raises(RuntimeError):
            breaker.call(boom)


def breaker(strategy: Strategy, clock: FakeClock, success_threshold: int = 1) -> CircuitBreaker:
    config = BreakerConfig(
        strategy=strategy,
        failure_threshold=3,
        window_s=10.0,
        cooldown_s=5.0,
        success_threshold=success_threshold,
    )
    return CircuitBreaker("test", config, clock=clock)


def test_consecutive_opens_after_a_run_and_success_resets() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.CONSECUTIVE, clock)
    fail(cb, 2)
    assert cb.call(lambda: 1) == 1  # the run is broken
    fail(cb, 2)
    assert state(cb) is BreakerState.CLOSED
    fail(cb)
    assert state(cb) is BreakerState.OPEN and cb.opened == 1


def test_consecutive_ignores_time() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.CONSECUTIVE, clock)
    for _ in range(3):
        clock.advance(1000)
        fail(cb)
    assert state(cb) is BreakerState.OPEN


def test_fixed_window_counts_within_one_window_only() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.FIXED, clock)
    fail(cb, 2)
    clock.advance(10.0)  # the window [t0, t0+10) is over: count restarts
    fail(cb, 2)
    assert state(cb) is BreakerState.CLOSED
    clock.advance(9.0)
    fail(cb)  # third failure inside the second window
    assert state(cb) is BreakerState.OPEN


def test_fixed_window_does_not_slide() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.FIXED, clock)
    fail(cb)
    clock.advance(9.0)
    fail(cb)  # window 1: 2 failures
    clock.advance(2.0)
    fail(cb)  # window 2 starts: 1 failure, although 2 happened within the last 10 s
    assert state(cb) is BreakerState.CLOSED


def test_rolling_window_slides() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.ROLLING, clock)
    fail(cb)
    clock.advance(9.0)
    fail(cb)
    clock.advance(2.0)  # the first failure has left the last 10 s
    fail(cb)
    assert state(cb) is BreakerState.CLOSED
    clock.advance(1.0)
    fail(cb)  # three within (t-10, t]
    assert state(cb) is BreakerState.OPEN


def test_rolling_success_does_not_reset() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.ROLLING, clock)
    fail(cb, 2)
    cb.call(lambda: None)
    fail(cb)
    assert state(cb) is BreakerState.OPEN


@pytest.mark.parametrize("strategy", list(Strategy))
def test_open_fails_fast_then_half_open_then_closed(strategy: Strategy) -> None:
    clock = FakeClock()
    cb = breaker(strategy, clock)
    changes: list[tuple[BreakerState, BreakerState]] = []
    cb.add_listener(lambda _name, old, new: changes.append((old, new)))
    fail(cb, 3)
    calls = []
    with pytest.raises(CircuitOpenError, match="open"):
        cb.call(lambda: calls.append(1))
    assert calls == []  # failed fast, the provider was not called
    clock.advance(4.9)
    assert state(cb) is BreakerState.OPEN
    clock.advance(0.1)
    assert state(cb) is BreakerState.HALF_OPEN
    assert cb.call(lambda: "probe") == "probe"
    assert state(cb) is BreakerState.CLOSED
    assert changes == [
        (BreakerState.CLOSED, BreakerState.OPEN),
        (BreakerState.OPEN, BreakerState.HALF_OPEN),
        (BreakerState.HALF_OPEN, BreakerState.CLOSED),
    ]


@pytest.mark.parametrize("strategy", list(Strategy))
def test_half_open_failure_reopens(strategy: Strategy) -> None:
    clock = FakeClock()
    cb = breaker(strategy, clock)
    fail(cb, 3)
    clock.advance(5.0)
    assert state(cb) is BreakerState.HALF_OPEN
    fail(cb)
    assert state(cb) is BreakerState.OPEN and cb.opened == 2
    clock.advance(4.0)
    with pytest.raises(CircuitOpenError):
        cb.call(lambda: None)  # the cooldown restarted at the failed probe


def test_success_threshold_needs_several_probes() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.CONSECUTIVE, clock, success_threshold=2)
    fail(cb, 3)
    clock.advance(5.0)
    cb.call(lambda: None)
    assert state(cb) is BreakerState.HALF_OPEN
    cb.call(lambda: None)
    assert state(cb) is BreakerState.CLOSED


def test_half_open_admits_one_probe_at_a_time() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.CONSECUTIVE, clock)
    fail(cb, 3)
    clock.advance(5.0)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        return "ok"

    result: list[str] = []
    probe = threading.Thread(target=lambda: result.append(cb.call(slow)))
    probe.start()
    assert started.wait(5)
    with pytest.raises(CircuitOpenError, match="probe runs"):
        cb.call(lambda: None)
    release.set()
    probe.join(5)
    assert result == ["ok"] and state(cb) is BreakerState.CLOSED


def test_reset_and_invalid_config() -> None:
    clock = FakeClock()
    cb = breaker(Strategy.ROLLING, clock)
    fail(cb, 3)
    cb.reset()
    assert state(cb) is BreakerState.CLOSED
    with pytest.raises(ConfigError, match="strategy"):
        BreakerConfig(strategy="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        BreakerConfig(failure_threshold=0)
    assert BreakerConfig(strategy="fixed").strategy is Strategy.FIXED  # type: ignore[arg-type]


def test_provider_wraps_embed_and_query_separately() -> None:
    clock = FakeClock()
    inner = HashProvider(dimensions=8)
    config = BreakerConfig(strategy=Strategy.CONSECUTIVE, failure_threshold=2, cooldown_s=5.0)
    provider = BreakerProvider(inner, config, clock=clock)
    assert (provider.model_id, provider.dimensions) == (inner.model_id, 8)
    inner.fail = True
    for _ in range(2):
        with pytest.raises(RuntimeError):
            provider.embed(["a"])
    assert provider.embed_breaker.state is BreakerState.OPEN
    assert provider.query_breaker.state is BreakerState.CLOSED and provider.open
    with pytest.raises(CircuitOpenError) as info:
        provider.embed(["a"])
    assert isinstance(info.value, EmbeddingError)
    inner.fail = False
    np.testing.assert_array_equal(provider.embed_query("x"), inner.vector("x"))
    clock.advance(5.0)
    assert provider.embed(["a"]).shape == (1, 8)
    assert not provider.open
