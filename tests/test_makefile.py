"""``make run``: installs only what the demo needs (the dev tools are ``make test``'s), and prints
its curl examples once the server answers; Ctrl-C stops it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def dry_run(target: str) -> list[str]:
    if shutil.which("make") is None:
        pytest.fail("make is not installed: `make run` and `make test` need it")
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_run_installs_the_default_package_and_test_adds_the_dev_tools() -> None:
    run_installs = [line for line in dry_run("run") if "--upgrade pip" not in line]
    assert run_installs == [".venv/bin/python -m pip install --quiet -e ."]
    assert any("-e '.[dev]'" in line for line in dry_run("pytest"))
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "touch $(DEV_STAMP) $(RUN_STAMP)" in makefile  # dev installs everything run needs


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
def test_run_prints_its_examples_once_the_server_answers(tmp_path: Path) -> None:
    venv = Path(sys.executable).parent.parent
    if not (venv / "bin" / "schemaseek").exists():
        pytest.fail(f"no schemaseek entry point in {venv}: install the package (make test)")
    stamp = tmp_path / "installed"
    stamp.touch()  # the install is done: newer than pyproject.toml
    port = free_port()
    args = [f"VENV={venv}", f"RUN_STAMP={stamp}", f"PORT={port}"]
    env = {**os.environ, "SCHEMASEEK_DATA_DIR": str(tmp_path / "data")}
    make = subprocess.Popen(
        ["make", "--no-print-directory", "run", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert make.stdout is not None
    try:
        printed: list[str] = []
        while not any("Try:" in line for line in printed):
            line = make.stdout.readline()
            assert line, ("make run ended before printing its examples", printed)
            printed.append(line)
        # at the moment the examples appear, the service answers them
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/ready", timeout=5) as ok:
            assert ok.status == 200
        examples = [make.stdout.readline() for _ in range(4)]
        assert examples[0].strip() == f"curl -s localhost:{port}/health/ready"
        body = json.dumps({"query": "royalty payments for Sony", "limit": 5}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/schemaseek.v1.SearchService/Search",
            data=body,
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert json.loads(answer.read())["results"]
        os.killpg(make.pid, signal.SIGINT)  # Ctrl-C
        assert make.wait(timeout=60) in (0, -signal.SIGINT)  # make dies of the SIGINT it got
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        make.stdout.close()
    deadline = time.monotonic() + 30
    while True:  # the server went with it
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                break
        assert time.monotonic() < deadline, "the demo server outlived make run"
        time.sleep(0.2)
