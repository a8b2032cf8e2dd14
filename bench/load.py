"""Sustained load on the network service over loopback: requests/s and p50/p99 latency.

Starts ``schemaseek serve`` on a free 127.0.0.1 port, waits until it is ready, then for each
target runs two phases of ``--seconds`` each with ``--concurrency`` client threads sending
Connect JSON ``Search`` requests (what curl sends): a steady phase, and one in which a refresh
happens mid-load (demo: ``RefreshEngine``; 10K: the SDL file changes, then ``RefreshEngine``
applies the diff, re-embedding the changed documents while searches continue). Targets:

* ``demo`` — the embedded demo (450 documents, two engines);
* ``10k`` — a synthetic GraphQL schema of 10,000 documents (900 types × 10 fields + 100 root
  fields, names from a business vocabulary), embedded with the real model once and kept in a
  snapshot store under ``.cache/bench/load/``.

Everything is bounded: fixed durations, loopback only, and the server is stopped at the end.

    .venv/bin/python bench/load.py [--targets demo 10k] [--seconds 60] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "bench" / "load"
SEARCH = "/schemaseek.v1.SearchService/Search"
REFRESH = "/schemaseek.v1.AdminService/RefreshEngine"
WORDS = [
    "account",
    "order",
    "invoice",
    "payment",
    "royalty",
    "contract",
    "artist",
    "label",
    "release",
    "product",
    "track",
    "delivery",
    "partner",
    "territory",
    "currency",
    "rate",
    "statement",
    "line",
    "customer",
    "shipment",
    "warehouse",
    "inventory",
    "supplier",
    "employee",
    "campaign",
    "budget",
    "ledger",
    "forecast",
    "region",
    "channel",
    "license",
]
DEMO_QUESTIONS = [
    "royalty payments for Sony",
    "how are releases distributed?",
    "which artists were paid last quarter",
    "contract parties and their shares",
    "usage reports from streaming partners",
    "advances recouped against royalties",
    "label territories",
    "currency exchange rates for statements",
]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def write_10k(path: Path, extra: int = 0) -> None:
    """The synthetic schema: 900 types x 10 fields, 100 root fields (+ ``extra`` types)."""
    rng = random.Random(7)
    lines = ['"""Synthetic business API for load tests."""', "type Query {"]
    names = []
    for i in range(900 + extra):
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        names.append(f"{a.title()}{b.title()}{i}")
    for i in range(100):
        target = names[i * 9]
        lines.append(f'  "Find {target} records by id."')
        lines.append(f"  {target[0].lower() + target[1:]}(id: ID!): {target}")
    lines.append("}")
    for i, name in enumerate(names):
        lines.append(f'"""{name}: the {WORDS[i % len(WORDS)]} facts of the business."""')
        lines.append(f"type {name} {{")
        for j in range(10):
            word = WORDS[(i + j * 7) % len(WORDS)]
            ref = names[(i + j + 1) % len(names)] if j == 9 else "String"
            lines.append(f'  "The {word} of this {name}."')
            lines.append(f"  {word}{j}: {ref}")
        lines.append("}")
    path.write_text("\n".join(lines) + "\n")


class Server:
    """A ``schemaseek serve`` subprocess on loopback."""

    def __init__(self, args: list[str], data: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        data.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "SCHEMASEEK_DATA_DIR": str(data),
            "SCHEMASEEK_SNAPSHOT_DIR": str(data / "snapshots"),
            "SCHEMASEEK_LOG_LEVEL": "warning",
            "RATE_LIMIT_MAX": "1000000",
            "SCHEMASEEK_POLL": "false",
        }
        exe = str(Path(sys.executable).parent / "schemaseek")
        self.log = (data / "server.log").open("w")
        self.proc = subprocess.Popen(
            [exe, "serve", *args, "--port", str(self.port)],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float) -> float:
        started = time.monotonic()
        with httpx.Client(base_url=self.url, timeout=5) as client:
            while time.monotonic() - started < timeout:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited with {self.proc.returncode}")
                try:
                    if client.get("/health/ready").json().get("status") == "ready":
                        return time.monotonic() - started
                except (httpx.HTTPError, ValueError):
                    pass
                time.sleep(0.5)
        raise TimeoutError("server not ready in time")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def run_phase(
    url: str, questions: list[str], seconds: float, concurrency: int, refresh: Any = None
) -> dict[str, Any]:
    """Search in ``concurrency`` threads for ``seconds``; ``refresh()`` runs at half time."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds
    outcome: dict[str, Any] = {}

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        mine: list[float] = []
        with httpx.Client(base_url=url, timeout=30) as client:
            while time.monotonic() < stop_at:
                body = {"query": rng.choice(questions), "limit": 10}
                start = time.perf_counter()
                try:
                    reply = client.post(SEARCH, json=body)
                    ok = reply.status_code == 200
                    detail = f"{reply.status_code} {reply.text[:100]}"
                except httpx.HTTPError as exc:
                    ok, detail = False, repr(exc)
                mine.append(time.perf_counter() - start)
                if not ok:
                    with lock:
                        errors.append(detail)
        with lock:
            latencies.extend(mine)

    def refresher() -> None:
        time.sleep(seconds / 2)
        started = time.perf_counter()
        outcome.update(refresh())
        outcome["refresh_s"] = round(time.perf_counter() - started, 2)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    if refresh is not None:
        threads.append(threading.Thread(target=refresher))
    begun = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - begun
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "rps": round(len(ordered) / elapsed, 1),
        "p50_ms": round(1000 * statistics.median(ordered), 2) if ordered else None,
        "p99_ms": round(1000 * ordered[int(0.99 * (len(ordered) - 1))], 2) if ordered else None,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        **outcome,
    }


def refresh_call(url: str, source: str = "") -> dict[str, Any]:
    with httpx.Client(base_url=url, timeout=600) as client:
        reply = client.post(REFRESH, json={"source": source})
        reply.raise_for_status()
        reports = reply.json().get("reports", [])
    return {
        "refreshed": [
            {k: r.get(k) for k in ("source", "added", "changed", "removed", "embedded", "error")}
            for r in reports
        ]
    }


def bench_target(name: str, seconds: float, concurrency: int) -> dict[str, Any]:
    data = CACHE / name
    if name == "demo":
        args, questions = ["--demo"], DEMO_QUESTIONS

        def refresh() -> dict[str, Any]:
            return refresh_call(server.url)
    else:
        data.mkdir(parents=True, exist_ok=True)
        sdl = data / "schema.graphql"
        write_10k(sdl)
        (data / "schemaseek.toml").write_text(
            '[[sources]]\nname = "big_api"\ntype = "graphql"\nsdl = "schema.graphql"\n'
        )
        args = ["--config", str(data / "schemaseek.toml")]
        rng = random.Random(3)
        questions = [f"{rng.choice(WORDS)} {rng.choice(WORDS)} by region" for _ in range(64)]

        def refresh() -> dict[str, Any]:
            write_10k(sdl, extra=5)
            return refresh_call(server.url, "big_api")

    server = Server(args, data)
    try:
        ready_s = server.wait_ready(timeout=1800)
        steady = run_phase(server.url, questions, seconds, concurrency)
        during = run_phase(server.url, questions, seconds, concurrency, refresh)
    finally:
        server.stop()
        if name != "demo":
            write_10k(data / "schema.graphql")
    return {"target": name, "ready_s": round(ready_s, 1), "steady": steady, "refresh": during}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", nargs="+", default=["demo", "10k"], choices=["demo", "10k"])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--concurrency", type=int, default=4)
    opts = parser.parse_args()
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{opts.concurrency} client threads, {opts.seconds:.0f} s per phase, loopback"
    )
    for target in opts.targets:
        result = bench_target(target, opts.seconds, opts.concurrency)
        print(f"## {target} (ready after {result['ready_s']} s)")
        for phase in ("steady", "refresh"):
            row = result[phase]
            extra = {k: v for k, v in row.items() if k in ("refreshed", "refresh_s")}
            print(
                f"{phase:8s} {row['requests']:6d} req  {row['rps']:7.1f} req/s  "
                f"p50 {row['p50_ms']} ms  p99 {row['p99_ms']} ms  errors {row['errors']}"
                + (f"  {extra}" if extra else "")
                + (f"  first error: {row['first_error']}" if row["first_error"] else "")
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
