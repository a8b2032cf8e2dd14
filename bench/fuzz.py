"""Fuzz the network service with the seeded generator of the test suite, at volume.

Starts ``schemaseek serve --demo`` (tokens on, rate limit out of the way, polling off) on a free
127.0.0.1 port from a warm snapshot store under ``.cache/bench/fuzz/`` (built once), sends
``--requests`` requests from :mod:`tests.service.fuzzing` (every RPC, Connect JSON and binary,
GET and POST, raw gRPC frames, hostile cases) over ``--concurrency`` client threads, each with
an HTTP/1.1 and an HTTP/2 connection, and reports:

* status counts, 5xx (a 504 ``deadline_exceeded`` for a request that set its own deadline is
  counted apart: the protocol prescribes it), connection errors, whether the server died;
* the server's resident memory after ``--warmup`` requests and at the end (growth in %);
* wall time, the server's and the client's CPU time, and the load average (the machine is
  shared: CPU time is the fairer measure).

Bounded: fixed request count, loopback only, the server is stopped at the end.

    .venv/bin/python bench/fuzz.py [--requests 50000] [--concurrency 4] [--seed 15]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import resource
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.service.fuzzing import FuzzRequest, requests, send  # noqa: E402
from tests.service.harness import ADMIN_TOKEN, TOKENS, ServerProcess  # noqa: E402

CACHE = REPO / ".cache" / "bench" / "fuzz"
FRESH_CONNECTIONS_EVERY = 500


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Tally:
    """Counts shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: collections.Counter[int] = collections.Counter()
        self.labels: collections.Counter[str] = collections.Counter()
        self.server_errors: list[dict[str, Any]] = []
        self.client_deadlines = 0
        self.connection_errors: collections.Counter[str] = collections.Counter()
        self.sent = 0

    def record(self, request: FuzzRequest, reply: httpx.Response | None, error: str) -> None:
        with self.lock:
            self.sent += 1
            self.labels[request.label] += 1
            if reply is None:
                self.connection_errors[error] += 1
                return
            self.statuses[reply.status_code] += 1
            asked = "connect-timeout-ms" in request.headers or "grpc-timeout" in request.headers
            if reply.status_code == 504 and asked and "deadline_exceeded" in reply.text:
                self.client_deadlines += 1
            elif reply.status_code >= 500:
                self.server_errors.append(
                    {
                        "label": request.label,
                        "path": request.path,
                        "status": reply.status_code,
                        "body": reply.text[:200],
                    }
                )


def worker(url: str, source: Iterator[FuzzRequest], lock: threading.Lock, tally: Tally) -> None:
    clients: dict[bool, httpx.Client] = {}
    done = 0
    try:
        while True:
            with lock:
                request = next(source, None)
            if request is None:
                return
            if done % FRESH_CONNECTIONS_EVERY == 0:
                for old in clients.values():
                    old.close()
                clients = {
                    False: httpx.Client(base_url=url, timeout=30),
                    True: httpx.Client(base_url=url, timeout=30, http1=False, http2=True),
                }
            done += 1
            try:
                tally.record(request, send(clients[request.http2], request), "")
            except httpx.HTTPError as exc:
                tally.record(request, None, type(exc).__name__)
    finally:
        for client in clients.values():
            client.close()


def warm_store() -> Path:
    """A snapshot store with the demo's generations (one cold start, kept for reruns)."""
    store = CACHE / "snaps"
    if not any(store.rglob("manifest.json")):
        server = ServerProcess(CACHE / "warm", env={"SCHEMASEEK_SNAPSHOT_DIR": str(store)})
        try:
            server.wait_status("ready", timeout=600)
        finally:
            server.stop()
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--warmup", type=int, default=5_000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    store = warm_store()
    server = ServerProcess(
        CACHE / f"run-{os.getpid()}",
        env={
            "SCHEMASEEK_SNAPSHOT_DIR": str(store),
            "SCHEMASEEK_TOKENS": TOKENS,
            "RATE_LIMIT_MAX": "1000000",
            "SCHEMASEEK_POLL": "false",
        },
    )
    tally = Tally()
    report: dict[str, Any] = {}
    try:
        server.wait_status("ready", timeout=300)
        pid = server.proc.pid
        load_before = os.getloadavg()
        cpu_before, started = cpu_s(pid), time.monotonic()
        client_before = resource.getrusage(resource.RUSAGE_SELF)
        source, lock = requests(args.seed, args.requests, ADMIN_TOKEN), threading.Lock()
        threads = [
            threading.Thread(target=worker, args=(server.url, source, lock, tally))
            for _ in range(args.concurrency)
        ]
        for thread in threads:
            thread.start()
        warm_rss = 0
        while any(t.is_alive() for t in threads):
            time.sleep(0.5)
            if not warm_rss and tally.sent >= args.warmup:
                warm_rss = rss_kib(pid)
            if server.proc.poll() is not None:
                break
        for thread in threads:
            thread.join()
        wall = time.monotonic() - started
        alive = server.proc.poll() is None
        client_after = resource.getrusage(resource.RUSAGE_SELF)
        health = server.http.get("/health/ready").json()["status"] if alive else "dead"
        end_rss = rss_kib(pid) if alive else 0
        report = {
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}",
            "command": " ".join(["bench/fuzz.py", *sys.argv[1:]]),
            "requests": tally.sent,
            "concurrency": args.concurrency,
            "seed": args.seed,
            "statuses": dict(sorted(tally.statuses.items())),
            "labels": dict(sorted(tally.labels.items())),
            "server_errors_5xx": len(tally.server_errors),
            "server_error_examples": tally.server_errors[:5],
            "client_deadline_504": tally.client_deadlines,
            "connection_errors": dict(tally.connection_errors),
            "server_crashed": not alive,
            "health_after": health,
            "rss_after_warmup_mib": round(warm_rss / 1024, 1),
            "rss_end_mib": round(end_rss / 1024, 1),
            "rss_growth_pct": round(100.0 * (end_rss - warm_rss) / warm_rss, 2)
            if warm_rss
            else None,
            "wall_s": round(wall, 1),
            "server_cpu_s": round(cpu_s(pid) - cpu_before, 1) if alive else None,
            "client_cpu_s": round(
                client_after.ru_utime
                + client_after.ru_stime
                - client_before.ru_utime
                - client_before.ru_stime,
                1,
            ),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        server.stop()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
