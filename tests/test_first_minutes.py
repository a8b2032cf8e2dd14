"""The first five minutes of a new user: every mistake is one clear line and exit code 2 (never a
traceback, never a silent success), errors are printed verbatim, ``--version`` and ``python -m
schemaseek`` work, one config file serves every command, and ids are never cut."""

from __future__ import annotations

import importlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

import schemaseek
from schemaseek.cli.app import main
from schemaseek.errors import MissingExtraError

SDL = "type Query { orders: [Order] }\ntype Order { id: ID total: Float }\n"
LONG = "Order" + "WithAVeryLongGeneratedTypeNameThatGoesOnAndOn" * 3
CONFIG = """
glossary = "glossary.json"

[[sources]]
name = "shop"
type = "graphql"
sdl = "shop.graphql"

[search]
rrf_k = 30

[service]
port = {port}
"""


def run(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "schemaseek", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "80", **env},
        stdin=subprocess.DEVNULL,
    )


def one_line_error(done: subprocess.CompletedProcess[str], *expected: str) -> str:
    """The run failed with exit 2 and printed exactly ``error: ...`` on one line."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, done.stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return lines[0]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "shop.graphql").write_text(SDL, encoding="utf-8")
    (tmp_path / "glossary.json").write_text(
        json.dumps({"entries": [{"terms": ["purchases"], "targets": ["Order"]}]}), "utf-8"
    )
    return tmp_path


def test_version_and_python_dash_m() -> None:
    done = run("--version")
    assert done.returncode == 0 and done.stdout == f"schemaseek {schemaseek.__version__}\n"
    helped = run("--help")
    assert helped.returncode == 0 and "Usage: schemaseek" in helped.stdout


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    code = "import json, sys, schemaseek.cli; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    heavy = {"numpy", "sqlalchemy", "faiss", "onnxruntime", "tantivy", "pydantic", "httpx", "mcp"}
    assert heavy & loaded == set()


@pytest.mark.parametrize("command", ["search", "index", "mcp", "serve"])
def test_a_bad_setting_is_one_line(command: str, project: Path) -> None:
    args = [command, "q"] if command == "search" else [command]
    done = run(*args, "--demo", cwd=project, SCHEMASEEK_RRF_K="abc")
    one_line_error(done, "SCHEMASEEK_RRF_K='abc'", "number")


def test_serve_on_a_busy_port_is_one_line(project: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (project / "schemaseek.toml").write_text(CONFIG.format(port=port), "utf-8")
        done = run("serve", "--config", "schemaseek.toml", cwd=project)
    one_line_error(done, f"127.0.0.1:{port}", "in use")  # the port of the [service] table
    assert "listening" not in done.stderr


def test_missing_glossary_and_empty_sources_are_errors(project: Path) -> None:
    one_line_error(run("index", "--sdl", "shop.graphql", "--glossary", "nope.json", cwd=project))
    (project / "schemaseek.toml").write_text(CONFIG.format(port=0), "utf-8")
    (project / "glossary.json").unlink()
    one_line_error(run("index", cwd=project), "glossary.json not found", "schemaseek.toml")
    sqlite3.connect(project / "empty.db").close()
    done = run("search", "orders", "--database-url", "sqlite:///empty.db", cwd=project)
    one_line_error(done, "no tables to index")
    done = run("index", "--database-url", "sqlite:///empty.db", "--json", cwd=project)
    assert done.returncode == 2
    assert "no tables to index" in json.loads(done.stdout)["error"]["message"]


def test_errors_are_printed_verbatim(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(*_: object, **__: object) -> None:
        raise MissingExtraError("psycopg", "postgres")

    monkeypatch.setattr(importlib.import_module("schemaseek.cli.app"), "started_engines", missing)
    monkeypatch.setattr(sys, "argv", ["schemaseek", "index", "--database-url", "postgresql://x"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: psycopg is not installed; install it with: pip install 'schemaseek[postgres]'\n"
    )


def test_one_config_file_serves_every_command(project: Path) -> None:
    """``[search]`` and ``[service]`` in schemaseek.toml break no command (serve reads the
    port from it: see the busy-port test)."""
    (project / "schemaseek.toml").write_text(CONFIG.format(port=0), "utf-8")
    indexed = run("index", "--json", cwd=project)
    assert indexed.returncode == 0, indexed.stderr
    found = run("search", "purchases", "--config", "schemaseek.toml", "--json", cwd=project)
    assert found.returncode == 0, found.stderr
    ids = [r["id"] for r in json.loads(found.stdout)["results"]]
    assert "Order" in ids[:2]  # the glossary fired (the root field leading to it may lead)

    async def ask() -> dict[str, object]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "schemaseek", "mcp", "--config", "schemaseek.toml"],
            cwd=project,
            env=dict(os.environ),
        )
        with (project / "mcp.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                answer = await session.call_tool("search_schema", {"question": "purchases"})
        block = answer.content[0]
        assert isinstance(block, TextContent) and not answer.is_error, answer.content
        payload: dict[str, object] = json.loads(block.text)
        return payload

    answer = anyio.run(ask)
    results = answer["results"]
    assert isinstance(results, list) and "Order" in [r["id"] for r in results]


def test_ids_are_never_cut(project: Path) -> None:
    (project / "long.graphql").write_text(f"type Query {{ a: {LONG} }}\ntype {LONG} {{ id: ID }}")
    for extra in ([], ["--explain"]):
        done = run("search", "generated type", "--sdl", "long.graphql", *extra, cwd=project)
        assert done.returncode == 0, done.stderr
        assert LONG in done.stdout and len(LONG) > 80


def test_the_all_extra_holds_every_integration() -> None:
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    (everything,) = extras["all"]
    named = set(everything.split("[", 1)[1].rstrip("]").split(","))
    # gpu replaces onnxruntime; dev is tooling; service is in the default install already
    assert named == set(extras) - {"all", "dev", "gpu", "service"}
