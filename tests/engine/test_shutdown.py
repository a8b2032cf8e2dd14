"""SIGTERM/SIGINT: polling stops, engines are destroyed and drained; a stalled drain is forced
out after the timeout."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from schemaseek.shutdown import FORCED_EXIT_CODE, GracefulShutdown

REPO = Path(__file__).resolve().parents[2]


def child(mode: str, timeout: float) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.engine.shutdown_child", mode, str(timeout)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "READY"
    time.sleep(0.3)  # background embedding and polling are running
    return process


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_drains_and_exits_cleanly(signum: int) -> None:
    process = child("graceful", 10.0)
    started = time.monotonic()
    process.send_signal(signum)
    out, _ = process.communicate(timeout=15)
    assert process.returncode == 0
    assert out.strip() == "DRAINED True destroyed False"
    assert time.monotonic() - started < 5


def test_stalled_drain_is_forced_out_after_the_timeout() -> None:
    process = child("stuck", 1.0)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=15)
    elapsed = time.monotonic() - started
    assert process.returncode == FORCED_EXIT_CODE and "DRAINED" not in out
    assert 0.9 <= elapsed < 5


def test_shutdown_in_process_with_fakes() -> None:
    events: list[str] = []

    class Engine:
        def destroy(self, timeout: float | None = None) -> bool:
            events.append("destroy")
            return True

    class Timer:
        def stop(self, timeout: float | None = None) -> bool:
            events.append("stop")
            return True

    exits: list[int] = []
    shutdown = GracefulShutdown(
        [Engine()], [Timer()], [lambda: events.append("close")], exit=exits.append
    )
    assert shutdown.shutdown() and events == ["stop", "destroy", "stop", "close"] and exits == []
