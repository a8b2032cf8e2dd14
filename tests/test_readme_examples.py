"""The README's examples run as written: every fenced ``sh runnable`` / ``python runnable`` block,
in order, in one empty folder (``schemaseek demo --export .`` first writes the files the others
read). Blocks marked ``service`` run while the service the test starts itself answers: the
block's first line starts it as written (the port comes from ``PORT``, a free one)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemaseek.sources.demo import DEMO_PROJECT

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    language: str
    service: bool
    text: str


def runnable_blocks(readme: str) -> list[Block]:
    out = []
    for language, marks, text in _FENCE.findall(readme):
        words = marks.split()
        if "runnable" in words:
            out.append(Block(language, "service" in words, text))
    return out


def environment(folder: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "SCHEMASEEK_DATA_DIR": str(folder / ".data"),
        "COLUMNS": "100",
    }


def execute(block: Block, folder: Path, env: dict[str, str]) -> None:
    if block.language == "python":
        command = [sys.executable, "-c", block.text]
    else:
        assert block.language == "sh", block.language
        command = ["bash", "-euo", "pipefail", "-c", block.text]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (block.text, done.stdout[-3000:], done.stderr[-3000:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_ready(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert server.poll() is None, "the service the README starts exited"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/ready", timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    pytest.fail("the README's service did not answer /health/ready within 300 s")


def test_the_readme_marks_its_runnable_examples() -> None:
    blocks = runnable_blocks(README)
    assert len([b for b in blocks if not b.service]) >= 3
    assert len([b for b in blocks if b.service]) >= 2
    assert runnable_blocks("```sh runnable\nx\n```\n```sh\ny\n```\n") == [Block("sh", False, "x\n")]


def test_the_sample_toml_is_what_demo_export_writes() -> None:
    tomls = [text for language, _, text in _FENCE.findall(README) if language == "toml"]
    assert DEMO_PROJECT in tomls


def test_the_readme_examples_run_as_written(tmp_path: Path) -> None:
    env = environment(tmp_path)
    blocks = runnable_blocks(README)
    for block in [b for b in blocks if not b.service]:
        execute(block, tmp_path, env)
    service = [b for b in blocks if b.service]
    port = free_port()
    first, _, rest = service[0].text.partition("\n")
    server = subprocess.Popen(
        ["bash", "-c", f"exec {first}"],
        cwd=tmp_path,
        env={**env, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(port, server)
        for block in [Block(service[0].language, True, rest), *service[1:]]:
            on_port = block.text.replace(":8081", f":{port}")
            execute(Block(block.language, True, on_port), tmp_path, env)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
