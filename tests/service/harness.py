"""Start the real service as a subprocess on a free loopback port, and talk to it.

Every request goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
SEARCH_TOKEN = "search-token-for-tests"
ADMIN_TOKEN = "admin-token-for-tests"
SEARCH = "/schemaseek.v1.SearchService/"
ADMIN = "/schemaseek.v1.AdminService/"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


TOKENS = f"app:search:{sha256(SEARCH_TOKEN)},ops:admin:{sha256(ADMIN_TOKEN)}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """One ``schemaseek serve`` (or another launcher) subprocess."""

    def __init__(
        self,
        data_dir: Path,
        *,
        env: dict[str, str] | None = None,
        args: Sequence[str] = ("--demo",),
        command: Sequence[str] | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.log_path = data_dir / f"server-{self.port}.log"
        data_dir.mkdir(parents=True, exist_ok=True)
        full_env = {
            **os.environ,
            "SCHEMASEEK_DATA_DIR": str(data_dir),
            "SCHEMASEEK_CURSOR_SECRET": "tests-cursor-secret-0123456789",
            "SCHEMASEEK_LOG_LEVEL": "warning",
            **(env or {}),
        }
        base = command or [str(Path(sys.executable).parent / "schemaseek"), "serve"]
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [*base, *args, "--port", str(self.port)],
            env=full_env,
            cwd=str(data_dir),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.http = httpx.Client(base_url=self.url, timeout=30.0)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_listening(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}:\n{self.log()}")
            try:
                if self.http.get("/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"server did not listen in {timeout} s:\n{self.log()}")

    def wait_status(self, wanted: str, timeout: float = 180.0) -> dict[str, Any]:
        self.wait_listening()
        deadline = time.monotonic() + timeout
        body: dict[str, Any] = {}
        while time.monotonic() < deadline:
            body = self.http.get("/health/ready").json()
            if body["status"] == wanted:
                return body
            time.sleep(0.1)
        raise TimeoutError(f"status stayed {body} (wanted {wanted}):\n{self.log()}")

    def wait_engine(self, name: str, wanted: str, timeout: float = 180.0) -> dict[str, Any]:
        """Wait until engine ``name`` reports ``wanted`` (``degraded`` overall can mean either
        a failed source or vectors still building)."""
        self.wait_listening()
        deadline = time.monotonic() + timeout
        body: dict[str, Any] = {}
        while time.monotonic() < deadline:
            body = self.http.get("/health/ready").json()
            if body.get("engines", {}).get(name, {}).get("state") == wanted:
                return body
            time.sleep(0.1)
        raise TimeoutError(f"engine {name} stayed {body} (wanted {wanted}):\n{self.log()}")

    def rpc(
        self, path: str, body: dict[str, Any], token: str | None = ADMIN_TOKEN, **kw: Any
    ) -> httpx.Response:
        headers = {"content-type": "application/json", **kw.pop("headers", {})}
        if token:
            headers["authorization"] = f"Bearer {token}"
        return self.http.post(path, json=body, headers=headers, **kw)

    def stop(self, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.http.close()
        self._log.close()
        return self.proc.returncode
